package authoring

import "github.com/yuin/gopher-lua/ast"

// What a walk of a file records: the facts the checks are made of.

// symbol is a local variable: its declaration, and the name it has.
type symbol struct {
	name string
	decl any // the node that declares it
	idx  int // which name of the declaration
}

// varKey names a variable: a local (sym) or a global (name).
type varKey struct {
	sym    *symbol
	global string
}

func (k varKey) valid() bool { return k.sym != nil || k.global != "" }

// varPath is a variable and the indexes taken from it: a constant field
// name, or "*" for any other key.
type varPath struct {
	v     varKey
	steps string // "/"-joined steps, "" for the variable itself
}

// source is what a value was made by, as far as the types of the API's
// objects go.
type source struct {
	kind   sourceKind
	typ    string  // srcAPI: the type the API call returns
	path   varPath // srcVar: the variable read; srcMethod: the receiver
	method string  // srcMethod
	recv   *source // srcMethod on something other than a variable
	idx    int     // srcCall: which result
}

type sourceKind uint8

const (
	srcUnknown sourceKind = iota
	srcNil
	srcTable  // a table constructor: a container, no object type
	srcAPI    // a call of an API function that returns an object
	srcVar    // the value of a variable (path)
	srcMethod // a method call's first result
	srcCall   // result idx of a call of the program's function path
)

// ref is a place in a file.
type ref struct {
	f    *file
	node any
	line int
}

// globalRead is a read of a global name.
type globalRead struct {
	name    string
	at      ref
	guarded bool     // tested rather than used: x or y, if x, type(x), x == nil
	locals  []string // the locals in scope, for "did you mean"
}

// pathRead is a read of a field of the globals by a constant path
// ("sysbench.rand.uniform"), however it was spelt (through _G, or a local
// alias of a table of the path).
type pathRead struct {
	path    string
	at      ref // at the last field's name
	guarded bool
	called  bool
}

// call is a call whose callee the checks may know: a path of the API, or
// a method of a value whose type may be inferred.
type call struct {
	e      *ast.FuncCallExpr
	at     ref
	path   string  // a function by its path, "" for a method call
	recv   *source // a method call's receiver
	method string
	// nargs is the number of arguments; multi says the last one can
	// give any number of values (a call or ...).
	nargs int
	multi bool
	last  source // what made the last argument, when multi
	// sql is the first argument's text, when the source spells it out
	// (sqlOK): a prepare's statement.
	sql   string
	sqlOK bool
	// target is what the result is assigned to, for a prepare; arg0,
	// the variable the first argument is (db_bind_param(stmt, ...)).
	target varPath
	arg0   varPath
}

// assignment is a value given to a variable or one of its fields.
type assignment struct {
	to  varPath
	src source
	rhs ast.Expr
}

// funcDef is a global function defined by name (for misspelt hooks).
type funcDef struct {
	name string
	at   ref
}

// optionDecl is an option the script declares.
type optionDecl struct {
	name string // as written
	at   ref
}

// loadRef is a module or file a script loads by a name it spells out.
type loadRef struct {
	name string // require's module name, or dofile's file name
	file bool   // dofile/loadfile: a file beside the script
	at   ref
}

// facts are what a walk of one file found.
type facts struct {
	globalWrites map[string][]ref
	globalReads  []globalRead
	pathReads    []pathRead
	pathWrites   map[string][]ref
	// openPaths are tables written under computed keys, and
	// openGlobals that the globals are (setfenv, _G[k] = v, module):
	// names may exist that no walk sees.
	openPaths   map[string]bool
	openGlobals bool
	calls       []call
	assigns     []assignment
	funcDefs    []funcDef
	optDecls    []optionDecl
	optDeclared bool // the file writes sysbench.cmdline.options
	optDynamic  bool // it declares options by computed names
	optReads    map[string][]ref
	optReadAll  bool // it reads options by computed names, or hands sysbench.opt on
	loads       []loadRef
	openLoads   []ref // loads of names it computes
	// escapes are the variables used other than through their fields
	// and methods: handed on, or given another name.
	escapes map[varKey]bool
	// returns are what the program's named functions return: for each
	// return statement, its values' sources (multi: the last may give
	// more).
	returns map[varKey][]returned
}

// returned is one return statement's values.
type returned struct {
	srcs  []source
	multi bool
}
