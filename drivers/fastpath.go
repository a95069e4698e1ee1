package drivers

// A fast path is a way a driver runs a statement other than as it was
// written: a multi-row INSERT loaded through COPY, its literals sent as
// binary parameters, a prepared statement's parameters substituted into
// its text. Each gives the same rows and the same errors as the statement
// as written, or declines and the statement runs as written. FastPaths
// lists them all: the differential test (fastpath_test.go) runs each over
// a corpus of values on the real servers, and fails for a driver that
// takes one of these ways without an entry here.

// FastPathKind is what a fast path stands in for.
type FastPathKind int

const (
	// BulkFastPath runs the multi-row INSERT of literals that
	// bulk_insert_next built (BulkLoader.BulkInsert) in place of the
	// INSERT's text; the statement as written is that text run as a
	// query.
	BulkFastPath FastPathKind = iota
	// SubstitutionFastPath substitutes a prepared statement's parameters
	// into its text on the client (Interpolate), under
	// --db-ps-mode=disable or where the server will not prepare it; the
	// statement as written is the server-side prepared statement with the
	// parameters bound.
	SubstitutionFastPath
)

// FastPath is one entry of FastPaths.
type FastPath struct {
	Name   string // as docs/drivers.md calls it
	Driver string // the --db-driver whose connections take it
	Kind   FastPathKind
	// Declines says when the path leaves the statement as written.
	Declines string
}

// FastPaths are the fast paths of the compiled-in drivers.
var FastPaths = []FastPath{
	{"pgsql COPY", "pgsql", BulkFastPath,
		"a value COPY's input would read otherwise than the INSERT's literal (CopySafe), a target other than a plain table without rules or row security, generated or identity-always columns, rows that do not fill the target's columns"},
	{"mysql binary bulk parameters", "mysql", BulkFastPath,
		"anything but strings without backslashes, integers within 64 bits, NULL, TRUE and FALSE; --db-ps-mode=disable; a statement the server will not prepare"},
	{"pgsql substitution", "pgsql", SubstitutionFastPath,
		"never: each parameter becomes a literal of the type the prepared statement declares for it"},
	{"mysql substitution", "mysql", SubstitutionFastPath,
		"never: each parameter becomes the literal of its value's type (floats as double literals, in exponent form)"},
	{"sqlite substitution", "sqlite", SubstitutionFastPath,
		"never: each parameter becomes the literal SQLite reads as the bound value"},
}
