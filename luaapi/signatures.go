package luaapi

// What the API's functions take, for sysbench-go check: the number of
// arguments each accepts and what the leading ones must be. The names
// themselves come from a state (APISurface); TestSignaturesCoverAPI holds
// this table to it, both ways, so neither can change without the other.

// ArgKind is what an argument must be, as far as the source can tell.
type ArgKind uint8

const (
	// ArgAny takes anything.
	ArgAny ArgKind = iota
	// ArgNumber takes a number, or a string that reads as one.
	ArgNumber
	// ArgString takes a string, or a number (Lua converts it).
	ArgString
	// ArgTable takes a table.
	ArgTable
	// ArgFunction takes a function.
	ArgFunction
)

func (k ArgKind) String() string {
	return [...]string{"any value", "a number", "a string", "a table", "a function"}[k]
}

// Signature is what a function of the API takes and gives.
type Signature struct {
	// Min and Max bound the number of arguments (after self, for a
	// method); Max < 0 takes any number.
	Min, Max int
	// Args are what the first arguments must be; those after, anything.
	Args []ArgKind
	// Returns is the type of the API's object the call gives
	// (sql_connection, ...), "" for none of them.
	Returns string
}

// Names of the API's functions: the dotted path of a function reachable
// from the globals, or "type:method" for an object's method.
var apiSignatures = map[string]Signature{
	// sysbench.rand: the 0.5-era sb_rand* are the same functions.
	"sysbench.rand.default":        numbers(2),
	"sysbench.rand.uniform":        numbers(2),
	"sysbench.rand.gaussian":       numbers(2),
	"sysbench.rand.special":        numbers(2),
	"sysbench.rand.pareto":         numbers(2),
	"sysbench.rand.zipfian":        numbers(2),
	"sysbench.rand.unique":         {},
	"sysbench.rand.string":         {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.rand.varstring":      numbers(2),
	"sysbench.rand.uniform_uint64": {},
	"sysbench.rand.uniform_double": {},
	"sb_rnd":                       {},
	"sb_rand_uniq":                 {Min: 0, Max: 2, Args: []ArgKind{ArgNumber, ArgNumber}},

	"sysbench.sql.driver":                 {Min: 0, Max: 1, Args: []ArgKind{ArgString}, Returns: driverType},
	"sysbench.histogram.new":              {Min: 3, Max: 3, Args: []ArgKind{ArgNumber, ArgNumber, ArgNumber}, Returns: histogramType},
	"sysbench.progress.expect":            {Min: 2, Max: 2, Args: []ArgKind{ArgString, ArgNumber}},
	"sysbench.report_default":             {Min: 1, Max: 1, Args: []ArgKind{ArgTable}},
	"sysbench.report_csv":                 {Min: 1, Max: 1, Args: []ArgKind{ArgTable}},
	"sysbench.report_json":                {Min: 1, Max: 1, Args: []ArgKind{ArgTable}},
	"sysbench.cmdline.print_test_options": {},
	"sysbench.cmdline.command_defined":    {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.cmdline.command_parallel":   {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.cmdline.call_command":       {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.event_plan":                 {Returns: planType},
	"__sysbench_int64":                    {Min: 2, Max: 2, Args: []ArgKind{ArgString, ArgString}},

	// The 0.5-era sysbench.db (and its db_* globals).
	"sysbench.db.connect":          {},
	"sysbench.db.disconnect":       {},
	"sysbench.db.query":            {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.db.bulk_insert_init": {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.db.bulk_insert_next": {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	"sysbench.db.bulk_insert_done": {},
	"sysbench.db.prepare":          {Min: 1, Max: 1, Args: []ArgKind{ArgString}, Returns: stmtType},
	"sysbench.db.bind_param":       {Min: 2, Max: 2, Args: []ArgKind{ArgAny, ArgTable}},
	"sysbench.db.bind_result":      {Min: 0, Max: -1},
	"sysbench.db.execute":          {Min: 1, Max: 1, Returns: resultType},
	"sysbench.db.close":            {Min: 1, Max: 1},
	"sysbench.db.store_results":    {Min: 0, Max: -1},
	"sysbench.db.free_results":     {Min: 0, Max: 1},

	driverType + ":connect": {Returns: connType},
	driverType + ":name":    {},

	connType + ":query":            {Min: 1, Max: 1, Args: []ArgKind{ArgString}, Returns: resultType},
	connType + ":query_row":        {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	connType + ":prepare":          {Min: 1, Max: 1, Args: []ArgKind{ArgString}, Returns: stmtType},
	connType + ":bulk_insert_init": {Min: 1, Max: 1, Args: []ArgKind{ArgString}},
	// Beyond the reference: several pieces, joined as .. would.
	connType + ":bulk_insert_next": {Min: 1, Max: -1, Args: []ArgKind{ArgString}},
	connType + ":bulk_insert_done": {},
	connType + ":disconnect":       {},
	connType + ":reconnect":        {},
	connType + ":more_results":     {},
	connType + ":next_result":      {Returns: resultType},

	stmtType + ":bind_create": {Min: 1, Max: 2, Args: []ArgKind{ArgNumber, ArgNumber}, Returns: paramType},
	stmtType + ":bind_param":  {Min: 0, Max: -1, Args: nil},
	// Beyond the reference: the values of the first bound parameters.
	stmtType + ":execute":        {Min: 0, Max: -1, Returns: resultType},
	stmtType + ":execute_random": {Min: 3, Max: 4, Args: []ArgKind{ArgNumber, ArgNumber, ArgNumber, ArgNumber}},
	stmtType + ":close":          {},

	paramType + ":set":          {Min: 1, Max: 1},
	paramType + ":set_rand_str": {Min: 1, Max: 1, Args: []ArgKind{ArgString}},

	resultType + ":fetch_row": {},
	resultType + ":free":      {},

	histogramType + ":update": {Min: 1, Max: 1, Args: []ArgKind{ArgNumber}},
	histogramType + ":print":  {},

	planType + ":execute":        {Min: 1, Max: 1},
	planType + ":execute_random": {Min: 4, Max: 5, Args: []ArgKind{ArgAny, ArgNumber, ArgNumber, ArgNumber, ArgNumber}},
	planType + ":update_string":  {Min: 5, Max: 5, Args: []ArgKind{ArgTable, ArgNumber, ArgNumber, ArgNumber, ArgString}},
	planType + ":delete_insert": {Min: 7, Max: 7, Args: []ArgKind{ArgTable, ArgTable, ArgNumber, ArgNumber, ArgNumber,
		ArgString, ArgString}},
	planType + ":run":  {},
	planType + ":bind": {Min: 1, Max: 1},
}

func numbers(n int) Signature {
	args := make([]ArgKind, n)
	for i := range args {
		args[i] = ArgNumber
	}
	return Signature{Min: n, Max: n, Args: args}
}

// Signatures are what the API's functions take, by name (see
// apiSignatures). A function with several names is under its first
// (Surface.Canonical); the caller must not change the map.
func Signatures() map[string]Signature { return apiSignatures }

// Fields of an object that are not methods (a result's row counts, a
// parameter's type): values, read without a call.
var objectFields = map[string][]string{
	resultType: resultFields,
	paramType:  {"type", "max_len"},
}

// ObjectFields are the fields of the API's object types that hold values
// rather than methods.
func ObjectFields() map[string][]string { return objectFields }

// The script's functions the engine calls, by name: globals, and fields
// of sysbench.hooks. TestHooksAreTheCalledOnes holds them to the calls in
// this package.
var (
	globalHooks = []string{"init", "done", "thread_init", "thread_done", "event", "thread_run",
		"prepare", "cleanup", "help"}
	tableHooks = []string{"report_intermediate", "report_cumulative", "sql_error_ignorable", "before_restart_event"}
)

// Hooks are the names of the global functions the engine calls and of
// the functions it calls in sysbench.hooks.
func Hooks() (globals, hooks []string) { return globalHooks, tableHooks }
