package luaapi

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/luajit/number"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// Userdata type names, as sysbench's own.
const (
	driverType = "sql_driver"
	connType   = "sql_connection"
	stmtType   = "sql_statement"
	paramType  = "sql_param"
	resultType = "sql_result"
)

// bulkPacketSize is the size at which a bulk insert is flushed, and the
// longest single row it takes (the reference's limit and message).
const bulkPacketSize = 512 * 1024

// bulkBatchSize is the size at which c's bulk inserts are flushed: a
// driver may ask for less than bulkPacketSize (drivers.BulkBatcher).
func (c *sqlConn) bulkBatchSize() int {
	if b, ok := c.conn.(drivers.BulkBatcher); ok {
		return min(b.BulkBatchSize(), bulkPacketSize)
	}
	return bulkPacketSize
}

type sqlDriver struct {
	name string
	drv  drivers.Driver
}

type sqlConn struct {
	rt     *runtime
	conn   drivers.Conn
	log    *logging.Logger // the run's, shared with the drivers
	ud     *lua.LUserData
	res    *sqlResult
	resUD  *lua.LUserData
	stmts  []*sqlStmt
	closed bool
	// at says where the connection is open (nil: the driver cannot).
	at drivers.Endpointer
	// renewAt is when --conn-lifetime renews it (renewal.now), 0 unset.
	renewAt int64

	bulk       []byte
	row        []byte // bulk_insert_next's joined arguments
	bulkValues int    // length of the INSERT prefix
	bulkCnt    int
	bulkBatch  int // flush size, from bulkBatchSize at bulk_insert_init
	// bulkRows counts the rows flushed into the bulk insert's table, for
	// a command's progress (nil when nobody reads it).
	bulkRows *metrics.TableRows
}

type sqlStmt struct {
	c      *sqlConn
	st     drivers.Stmt
	params []*sqlParam
	args   []drivers.Value
	// legacy (0.5 API) binding: values are read from this table at execute
	legacy *lua.LTable
	closed bool
}

type sqlParam struct {
	maxLen int
	val    drivers.Value
	rt     *runtime    // for set_rand_str's generator
	table  *lua.LTable // the parameter as scripts see it
}

// sqlResult is a connection's result object; like the reference's, there
// is one per connection and every query returns it.
type sqlResult struct {
	c *sqlConn
	r drivers.Result // the last query's, for nrows and nfields; nil once freed
	// set: r is a result set (a read) not freed yet, the reference's
	// "result set" state of a connection: only then do fetch_row and
	// free work on it.
	set bool
}

// dropResult frees the connection's result, as the reference does before
// each query and when a connection closes.
func (c *sqlConn) dropResult() {
	if c.res.r != nil {
		c.res.r.Close()
	}
	c.res.r, c.res.set = nil, false
}

func (c *sqlConn) ctx() context.Context { return c.rt.queryCtx() }

func (c *sqlConn) close() {
	if c.closed {
		return
	}
	c.closed = true
	c.dropResult()
	for _, s := range c.stmts {
		if !s.closed {
			s.closed = true
			_ = s.st.Close()
		}
	}
	c.stmts = nil
	_ = c.conn.Close()
	c.rt.held(-1)
}

func checkUD[T any](L *lua.LState, n int, what string) T {
	ud := luajit.CheckUserData(L, n)
	v, ok := ud.Value.(T)
	if !ok {
		luajit.ArgError(L, n, what+" expected")
	}
	return v
}

// checkConn returns the connection at stack index n. Calling a method of a
// closed one is an API error pointing at (at).
func checkConn(L *lua.LState, n int, at pos) *sqlConn {
	c := checkUD[*sqlConn](L, n, connType)
	if c.closed {
		c.apiError(L, at)
	}
	return c
}

// The reference's ALERT texts for misuse of a connection.
const (
	alertClosed      = "attempt to use an already closed connection"
	alertCloseClosed = "attempt to close an already closed connection"
)

func (c *sqlConn) alert(msg string) { c.log.Alertf("%s", msg) }

// apiError is the reference's answer to a query on a closed connection:
// an ALERT line, then the error "SQL API error".
func (c *sqlConn) apiError(L *lua.LState, at pos) {
	c.alert(alertClosed)
	raiseAt(L, at, "SQL API error")
}

// pos says which file:line an error raised by the API carries. The
// reference's API is Lua wrapping C, and its wrappers raise with
// error(msg, level) or assert: the position is that of a function some
// levels up the stack, and none when that function is not Lua (pcall).
type pos int

const (
	// atCaller: the function that called the API function.
	atCaller pos = 1
	// atCallersCaller: one further up, where the reference's wrapper
	// tail-calls its error helper (query, execute on a closed connection).
	atCallersCaller pos = 2
	// atQueryRow: inside the reference's own query_row, whose fatal SQL
	// errors carry the line of sysbench.sql.lua that calls query.
	atQueryRow pos = -1
)

// queryRowWhere is the position the reference's query_row errors carry.
const queryRowWhere = `[string "sysbench.sql.lua"]:300: `

// raiseAt raises the message as a Lua error with the position at says.
func raiseAt(L *lua.LState, at pos, format string, args ...any) {
	L.Error(lua.LString(where(L, at)+fmt.Sprintf(format, args...)), 0)
}

// where is the "file:line: " prefix for an error raised at at, or "".
func where(L *lua.LState, at pos) string {
	if at == atQueryRow {
		return queryRowWhere
	}
	return luajit.Where(L, int(at))
}

// setParamCdata sets a BIGINT or DOUBLE statement parameter to a cdata's
// value (param:set(sysbench.rand.uniform_uint64()) as with the reference's
// FFI buffers): a 64-bit integer exactly. It is false when v is no cdata.
func setParamCdata(p *sqlParam, v lua.LValue) bool {
	if p.val.Type == drivers.TypeBigInt {
		i, ok := luajit.CdataInt64(v)
		if ok {
			p.val.Null = false
			p.val.Int = i
		}
		return ok
	}
	f, ok := luajit.CdataNumber(v)
	if ok {
		p.val.Null = false
		p.val.Float = f
	}
	return ok
}

// registerSQL creates sysbench.sql and the 0.5-era sysbench.db.
func registerSQL(L *lua.LState, sb *lua.LTable) {
	sql := L.CreateTable(0, 3)
	types := L.CreateTable(0, 13)
	for i, n := range []string{"NONE", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
		"TIME", "DATE", "DATETIME", "TIMESTAMP", "CHAR", "VARCHAR"} {
		types.RawSetString(n, lua.LNumber(i))
	}
	sql.RawSetString("type", types)
	errs := L.CreateTable(0, 3)
	errs.RawSetString("NONE", lua.LNumber(0))
	errs.RawSetString("IGNORABLE", lua.LNumber(1))
	errs.RawSetString("FATAL", lua.LNumber(2))
	sql.RawSetString("error", errs)

	// Metatables.
	newUDType(L, driverType, funcTable(L, map[string]lua.LGFunction{
		"connect": driverConnect,
		"name": func(L *lua.LState) int {
			L.Push(lua.LString(checkUD[*sqlDriver](L, 1, driverType).name))
			return 1
		},
	}))
	newUDType(L, connType, funcTable(L, map[string]lua.LGFunction{
		"query":            connQuery,
		"query_row":        connQueryRow,
		"prepare":          connPrepare,
		"bulk_insert_init": connBulkInit,
		"bulk_insert_next": connBulkNext,
		"bulk_insert_done": connBulkDone,
		"disconnect":       connDisconnect,
		"reconnect":        connReconnect,
		"more_results":     connMoreResults,
		"next_result":      connNextResult,
	}))
	newUDType(L, stmtType, funcTable(L, map[string]lua.LGFunction{
		"bind_create":    stmtBindCreate,
		"bind_param":     stmtBindParam,
		"execute":        stmtExecute,
		"execute_random": stmtExecuteRandom,
		"close":          stmtClose,
	}))
	// A parameter's table holds its fields and methods itself (see
	// newParamTable); its metatable prints it. set_rand_str is shared.
	newUDType(L, paramType, lua.LNil)
	getRuntime(L).paramRandStr = L.NewFunction(paramSetRandStr)
	resMethods := funcTable(L, map[string]lua.LGFunction{
		"fetch_row": resultFetchRow,
		"free":      resultFree,
	})
	// nrows, nfields and counter are fields computed from the result.
	newUDType(L, resultType, L.NewFunction(func(L *lua.LState) int {
		r := checkUD[*sqlResult](L, 1, resultType)
		key := luajit.CheckString(L, 2)
		switch key {
		case "nrows":
			if r.r == nil {
				L.Push(lua.LNumber(0))
			} else {
				L.Push(lua.LNumber(r.r.NRows()))
			}
		case "nfields":
			if r.r == nil {
				L.Push(lua.LNumber(0))
			} else {
				L.Push(lua.LNumber(r.r.NFields()))
			}
		case "counter":
			if r.r == nil {
				L.Push(lua.LNumber(0))
			} else {
				L.Push(lua.LNumber(r.r.Counter()))
			}
		default:
			L.Push(resMethods.RawGetString(key))
		}
		return 1
	}))

	sql.RawSetString("driver", L.NewFunction(sqlDriverNew))
	sb.RawSetString("sql", sql)
	registerLegacyDB(L, sb)
}

// newUDType creates the metatable of userdata type name: __index is its
// methods table (or a function, for computed fields) and __tostring
// prints "<name>", as sysbench does. It returns the metatable.
func newUDType(L *lua.LState, name string, index lua.LValue) *lua.LTable {
	mt := L.CreateTable(0, 2)
	L.SetField(L.Get(lua.RegistryIndex), name, mt)
	mt.RawSetString("__index", index)
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("<" + name + ">"))
		return 1
	}))
	return mt
}

// sqlDriverNew is sysbench.sql.driver([name]).
func sqlDriverNew(L *lua.LState) int {
	rt := getRuntime(L)
	name := luajit.OptString(L, 1, "")
	log := rt.env.sqlLog()
	d, name, err := rt.env.openDriver(name)
	if err != nil {
		log.Fatalf("%v", err)
		raiseAt(L, atCaller, "failed to initialize the DB driver")
	}
	ud := L.NewUserData()
	ud.Value = &sqlDriver{name: name, drv: d}
	L.SetMetatable(ud, L.GetTypeMetatable(driverType))
	L.Push(ud)
	return 1
}

// sqlLog returns the logger the SQL API and the drivers of this run print
// to: the run's, so that one repeat count covers them all.
func (env *Env) sqlLog() *logging.Logger {
	if env.Log != nil {
		return env.Log
	}
	return logging.OrDiscard(env.DriverConfig.Log)
}

func driverConnect(L *lua.LState) int {
	d := checkUD[*sqlDriver](L, 1, driverType)
	rt := getRuntime(L)
	c, err := connect(L, rt, d.drv, d.name)
	if err != nil {
		raiseAt(L, atCaller, "connection creation failed")
	}
	L.Push(c.ud)
	return 1
}

func connect(L *lua.LState, rt *runtime, d drivers.Driver, name string) (*sqlConn, error) {
	ctx := rt.queryCtx()
	conn, err := d.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rt.env.noteServer(ctx, conn)
	at, _ := conn.(drivers.Endpointer)
	if rt.statements != nil {
		conn = timeStatements(conn, rt.statements, name)
	}
	if rt.trace != nil {
		conn = rt.trace.traceConn(conn, name)
	}
	c := &sqlConn{rt: rt, conn: conn, log: rt.env.sqlLog(), at: at}
	c.connected()
	c.ud = L.NewUserData()
	c.ud.Value = c
	L.SetMetatable(c.ud, L.GetTypeMetatable(connType))
	c.res = &sqlResult{c: c}
	c.resUD = L.NewUserData()
	c.resUD.Value = c.res
	L.SetMetatable(c.resUD, L.GetTypeMetatable(resultType))
	rt.conns = append(rt.conns, c)
	rt.held(1)
	return c, nil
}

// done handles a query's outcome: it counts it, and either pushes the
// connection's result object or raises the error as the reference does,
// at the position at.
func (c *sqlConn) done(L *lua.LState, res drivers.Result, err error, query string, at pos) int {
	if err != nil {
		c.raise(L, err, query, at)
		return 0
	}
	cnt := res.Counter()
	c.rt.count(metrics.Counter(cnt))
	c.keep(res, cnt)
	L.Push(c.resUD)
	return 1
}

// keep makes res, counted as cnt, the connection's result, freeing the
// one before; it is a result set when it is a read.
func (c *sqlConn) keep(res drivers.Result, cnt drivers.Counter) {
	if c.res.r != nil && c.res.r != res {
		c.res.r.Close()
	}
	c.res.r, c.res.set = res, cnt == drivers.CntRead
}

// raise turns a driver error into the reference's Lua error: an error
// descriptor table with errcode RESTART_EVENT for ignorable errors (so the
// event restarts), or "SQL error, ..." at the position at otherwise.
func (c *sqlConn) raise(L *lua.LState, err error, query string, at pos) {
	panic(c.failure(L, err, query, where(L, at)))
}

// failure is the error raise raises; pos is the position a fatal error
// names ("file:line: ").
func (c *sqlConn) failure(L *lua.LState, err error, query, pos string) *lua.ApiError {
	c.dropResult()
	de := drivers.AsError(err)
	if de == nil {
		return luaErrorValue(lua.LString(pos + err.Error()))
	}
	// Counted before the descriptor is raised (countFailure).
	c.rt.countFailure(de)
	if de.Kind == drivers.Reconnect {
		c.connected() // the driver has reconnected, maybe elsewhere
	}
	desc := L.CreateTable(0, 7)
	desc.RawSetString("connection", c.ud)
	desc.RawSetString("query", lua.LString(query))
	desc.RawSetString("sql_errno", lua.LNumber(de.Code))
	desc.RawSetString("sql_state", lua.LString(de.State))
	desc.RawSetString("sql_errmsg", lua.LString(de.Msg))
	ignorable := de.Kind != drivers.Fatal
	if !ignorable {
		if hook, ok := getPath(L, "sysbench", "hooks", "sql_error_ignorable").(*lua.LFunction); ok {
			// An error in the hook goes up as it is, as the reference's.
			if err := luajit.CallProtected(L, hook, 1, desc); err != nil {
				if ae, ok := err.(*lua.ApiError); ok {
					return ae
				}
				return luaErrorValue(lua.LString(err.Error()))
			}
			ignorable = lua.LVAsBool(L.Get(-1))
			L.Pop(1)
		}
	}
	if ignorable {
		desc.RawSetString("errcode", lua.LNumber(restartEvent))
		return luaErrorValue(desc)
	}
	return luaErrorValue(lua.LString(fmt.Sprintf("%sSQL error, errno = %d, state = '%s': %s", pos, de.Code, de.State, de.Msg)))
}

// luaErrorValue is v raised as a Lua error.
func luaErrorValue(v lua.LValue) *lua.ApiError {
	return &lua.ApiError{Type: lua.ApiErrorRun, Object: v}
}

func connQuery(L *lua.LState) int {
	c := checkConn(L, 1, atCallersCaller)
	q := luajit.CheckString(L, 2)
	res, err := c.conn.Query(c.ctx(), q)
	return c.done(L, res, err, q, atCaller)
}

// connQueryRow returns the first row's values, or one nil when the query
// gave no result set or an empty one.
func connQueryRow(L *lua.LState) int {
	c := checkConn(L, 1, atCaller)
	q := luajit.CheckString(L, 2)
	res, err := c.conn.Query(c.ctx(), q)
	c.done(L, res, err, q, atQueryRow)
	L.Pop(1)
	if !c.res.set || res.NRows() == 0 || !res.Next() {
		L.Push(lua.LNil)
		return 1
	}
	n := res.NFields()
	for i := 0; i < n; i++ {
		if v, ok := res.Value(i); ok {
			L.Push(lua.LString(v))
		} else {
			L.Push(lua.LNil)
		}
	}
	return n
}

func connPrepare(L *lua.LState) int {
	c := checkConn(L, 1, atCaller)
	q := luajit.CheckString(L, 2)
	st, err := c.conn.Prepare(c.ctx(), q)
	if err != nil {
		if de := drivers.AsError(err); de == nil || de.Kind != drivers.Fatal {
			// A lost connection, re-established: the event restarts
			// (beyond the reference, which gives up).
			c.raise(L, err, q, atCaller)
		}
		// The driver printed its FATAL lines; the reference's prepare
		// leaves no error for its Lua side to describe.
		raiseAt(L, atCaller, "SQL API error")
	}
	s := &sqlStmt{c: c, st: st}
	c.stmts = append(c.stmts, s)
	ud := L.NewUserData()
	ud.Value = s
	L.SetMetatable(ud, L.GetTypeMetatable(stmtType))
	L.Push(ud)
	return 1
}

// The bulk insert calls fail with these; like the reference's asserts,
// they return them after true when they succeed.
const (
	bulkInitFailed = "db_bulk_insert_init() failed"
	bulkNextFailed = "db_bulk_insert_next() failed"
	bulkDoneFailed = "db_bulk_insert_done() failed"
	freeFailed     = "db_free_results() failed"
)

// The same, made Lua values once.
var (
	lvBulkInitFailed lua.LValue = lua.LString(bulkInitFailed)
	lvBulkNextFailed lua.LValue = lua.LString(bulkNextFailed)
	lvBulkDoneFailed lua.LValue = lua.LString(bulkDoneFailed)
	lvFreeFailed     lua.LValue = lua.LString(freeFailed)
)

// pushOK returns true and msg, as assert(true, msg) does.
func pushOK(L *lua.LState, msg lua.LValue) int {
	L.Push(lua.LTrue)
	L.Push(msg)
	return 2
}

// errClosed is a bulk flush on a closed connection.
var errClosed = errors.New(alertClosed)

func connBulkInit(L *lua.LState) int {
	c := checkUD[*sqlConn](L, 1, connType)
	q := luajit.CheckString(L, 2)
	if c.closed {
		// The reference warns and carries on.
		c.alert(alertClosed)
		return pushOK(L, lvBulkInitFailed)
	}
	c.dropResult()
	if len(q)+1 > bulkPacketSize {
		c.log.Fatalf("Query length exceeds the maximum value (%d), aborting", bulkPacketSize)
		raiseAt(L, atCaller, bulkInitFailed)
	}
	c.bulk = append(c.bulk[:0], q...)
	c.bulkValues, c.bulkCnt = len(q), 0
	c.bulkBatch = c.bulkBatchSize()
	c.bulkRows = nil
	if h := c.rt.rowsHandle(); h != nil && c.rt.stats == nil {
		c.bulkRows = h.Table(bulkTable(q))
	}
	return pushOK(L, lvBulkInitFailed)
}

// bulkFlush sends the rows collected so far as one INSERT. A failure has
// been logged by the driver and is counted; the rows stay in the buffer,
// as the reference's do.
func (c *sqlConn) bulkFlush() error {
	if c.bulkCnt == 0 {
		return nil
	}
	if c.closed {
		c.alert(alertClosed)
		return errClosed
	}
	c.dropResult()
	// The query is the buffer itself, not a copy of up to 512 KiB per
	// flush: drivers do not keep a query's text past the call.
	q := unsafe.String(&c.bulk[0], len(c.bulk))
	var res drivers.Result
	var err error
	handled := false
	if bl, ok := c.conn.(drivers.BulkLoader); ok {
		res, handled, err = bl.BulkInsert(c.ctx(), q)
	}
	if !handled {
		res, err = c.conn.Query(c.ctx(), q)
	}
	if err != nil {
		if de := drivers.AsError(err); de != nil {
			de.Query = "" // it points into the buffer
			c.rt.countFailure(de)
		}
		return err
	}
	c.rt.count(metrics.Counter(res.Counter()))
	res.Close()
	if c.bulkRows != nil {
		c.bulkRows.Add(c.bulkCnt)
	}
	c.bulk = c.bulk[:c.bulkValues]
	c.bulkCnt = 0
	return nil
}

func connBulkNext(L *lua.LState) int {
	c := checkUD[*sqlConn](L, 1, connType)
	var v string
	if L.GetTop() > 2 {
		// Beyond the reference: bulk_insert_next("(", id, ", '", c, "')")
		// joins its arguments as the Lua concatenation would, without
		// building the row as a Lua string first.
		c.row = c.row[:0]
		for i := 2; i <= L.GetTop(); i++ {
			switch x := L.Get(i).(type) {
			case lua.LString:
				c.row = append(c.row, x...)
			case lua.LNumber:
				// As the concatenation writes it (LuaJIT's %.14g: 2^60
				// is 1.1529215046068e+18): exact digits would store
				// another value than the script's string does.
				c.row = number.Append(c.row, float64(x))
			default:
				luajit.ArgError(L, i, "string expected, got "+x.Type().String())
			}
		}
		v = unsafe.String(unsafe.SliceData(c.row), len(c.row))
	} else {
		v = luajit.CheckString(L, 2)
	}
	if c.bulk == nil || c.closed {
		return c.bulkNextMisuse(L)
	}
	if c.bulkCnt > 0 && len(c.bulk)+len(v)+2 > c.bulkBatch {
		if c.bulkFlush() != nil {
			raiseAt(L, atCaller, bulkNextFailed)
		}
	}
	if len(c.bulk)+len(v)+2 > bulkPacketSize {
		c.log.Fatalf("Query length exceeds the maximum value (%d), aborting", bulkPacketSize)
		raiseAt(L, atCaller, bulkNextFailed)
	}
	if c.bulkCnt > 0 {
		c.bulk = append(c.bulk, ',')
	}
	c.bulk = append(c.bulk, v...)
	c.bulkCnt++
	return pushOK(L, lvBulkNextFailed)
}

// bulkNextMisuse answers bulk_insert_next on a closed connection (a
// warning, as the reference's) or before bulk_insert_init (an error).
func (c *sqlConn) bulkNextMisuse(L *lua.LState) int {
	if c.closed {
		c.alert(alertClosed)
		return pushOK(L, lvBulkNextFailed)
	}
	c.alert("attempt to call bulk_insert_next() before bulk_insert_init()")
	raiseAt(L, atCaller, bulkNextFailed)
	return 0
}

func connBulkDone(L *lua.LState) int {
	c := checkUD[*sqlConn](L, 1, connType)
	if c.bulkFlush() != nil {
		raiseAt(L, atCaller, bulkDoneFailed)
	}
	c.bulk = nil
	return pushOK(L, lvBulkDoneFailed)
}

func connDisconnect(L *lua.LState) int {
	c := checkUD[*sqlConn](L, 1, connType)
	if c.closed {
		c.alert(alertCloseClosed)
	}
	c.close()
	L.Push(lua.LTrue)
	return 1
}

func connReconnect(L *lua.LState) int {
	c := checkUD[*sqlConn](L, 1, connType)
	if c.closed {
		c.alert(alertCloseClosed)
		L.Push(lua.LTrue)
		return 1
	}
	err := c.conn.Reconnect(c.ctx())
	switch {
	case errors.Is(err, drivers.ErrReconnectUnsupported):
		c.alert(err.Error())
	case err != nil:
		// The reference's connection is unusable after this.
		c.rt.count(metrics.CntError)
		c.close()
		raiseAt(L, atCaller, "assertion failed!")
	default:
		c.dropResult()
		c.rt.count(metrics.CntReconnect)
		c.connected()
	}
	L.Push(lua.LTrue)
	return 1
}

// connected tells the worker's statistics where the connection is open
// now, after a connect or reconnect (metrics.Handle.Connected).
func (c *sqlConn) connected() {
	if c.at != nil && c.rt.stats != nil {
		c.rt.stats.Connected(c.at.Endpoint().String(), time.Now())
	}
}

func connMoreResults(L *lua.LState) int {
	c := checkConn(L, 1, atCaller)
	L.Push(lua.LBool(c.conn.MoreResults()))
	return 1
}

func connNextResult(L *lua.LState) int {
	c := checkConn(L, 1, atCaller)
	res, err := c.conn.NextResult(c.ctx())
	if err != nil {
		c.raise(L, err, "", atCaller)
		return 0
	}
	if res == nil {
		return 0
	}
	c.keep(res, res.Counter())
	L.Push(c.resUD)
	return 1
}

// checkStmt returns the statement at stack index n, raising at (at) the
// reference's API error if its connection is closed, or ours if the
// statement is.
func checkStmt(L *lua.LState, n int, at pos) *sqlStmt {
	s := checkUD[*sqlStmt](L, n, stmtType)
	if s.closed || s.c.closed {
		s.unusable(L, at)
	}
	return s
}

func (s *sqlStmt) unusable(L *lua.LState, at pos) {
	if s.c.closed {
		s.c.apiError(L, at)
	}
	raiseAt(L, atCaller, "attempt to use a closed statement")
}

func stmtBindCreate(L *lua.LState) int {
	st := checkUD[*sqlStmt](L, 1, stmtType)
	n := luajit.CheckNumber(L, 2)
	t := drivers.Type(n)
	p := &sqlParam{rt: st.c.rt}
	switch {
	case t.IsInteger():
		p.val.Type, p.maxLen = drivers.TypeBigInt, 8
	case t.IsFloat():
		p.val.Type, p.maxLen = drivers.TypeDouble, 8
	case t == drivers.TypeChar || t == drivers.TypeVarChar:
		p.val.Type, p.maxLen = drivers.TypeVarChar, luajit.OptInt(L, 3, 0)
		p.val.Str = make([]byte, 0, p.maxLen)
	default:
		raiseAt(L, atCaller, "Unsupported argument type: %s", n)
	}
	L.Push(newParamTable(L, p))
	return 1
}

// newParamTable is a parameter as the reference's: a table (type() says
// so) with its type and max_len, printed as "<sql_param>". Its methods
// are fields of its own, set bound to it (the parameter is the function's
// upvalue), so that p:set(v), once per query, finds its
// function in one lookup, with no metatable to go through and no self to
// look up. Nothing else holds the parameter: a script's parameter it
// drops is collected with its table.
func newParamTable(L *lua.LState, p *sqlParam) *lua.LTable {
	tb := L.CreateTable(0, 4)
	p.table = tb
	ud := L.NewUserData()
	ud.Value = p
	tb.RawSetString("set", L.NewClosure(boundParamSet, ud))
	tb.RawSetString("set_rand_str", getRuntime(L).paramRandStr)
	tb.RawSetString("type", lua.LNumber(p.val.Type))
	tb.RawSetString("max_len", lua.LNumber(p.maxLen))
	L.SetMetatable(tb, L.GetTypeMetatable(paramType))
	return tb
}

// boundParamSet is a parameter's own set: p:set(v).
func boundParamSet(L *lua.LState) int {
	p := L.Get(lua.UpvalueIndex(1)).(*lua.LUserData).Value.(*sqlParam)
	if L.Get(1) != p.table {
		// p.set(v), or another table's: as the reference's Lua method,
		// it fails unless given a parameter.
		p = checkParam(L, 1)
	}
	setParam(L, p, 2)
	return 0
}

// checkParam is the parameter at stack index n: a table of bind_create's,
// found through its set's upvalue.
func checkParam(L *lua.LState, n int) *sqlParam {
	if tb, ok := L.Get(n).(*lua.LTable); ok {
		if fn, ok := tb.RawGetString("set").(*lua.LFunction); ok && fn.IsG && len(fn.Upvalues) == 1 {
			if ud, ok := fn.Upvalues[0].Value().(*lua.LUserData); ok {
				if p, ok := ud.Value.(*sqlParam); ok {
					return p
				}
			}
		}
	}
	luajit.ArgError(L, n, paramType+" expected")
	return nil
}

func stmtBindParam(L *lua.LState) int {
	s := checkUD[*sqlStmt](L, 1, stmtType)
	n := L.GetTop() - 1
	if n < 1 {
		L.Push(lua.LNil)
		return 1
	}
	if s.c.closed {
		s.c.alert(alertClosed)
		L.Push(lua.LNumber(1))
		return 1
	}
	if s.closed {
		s.unusable(L, atCaller)
	}
	s.params = s.params[:0]
	for i := 2; i <= n+1; i++ {
		s.params = append(s.params, checkParam(L, i))
	}
	s.args = make([]drivers.Value, n)
	L.Push(lua.LNumber(0))
	return 1
}

func stmtExecute(L *lua.LState) int {
	s := checkStmt(L, 1, atCallersCaller)
	if s.legacy != nil {
		s.loadLegacy(L)
		return s.run(L, false)
	}
	// Beyond the reference: execute(v1, v2, ...) sets the bound
	// parameters first, saving a Lua→Go call per parameter on the hot
	// path of the bundled scripts.
	n := L.GetTop() - 1
	if n > len(s.params) {
		luajit.ArgError(L, n+1, fmt.Sprintf("%d values for %d bound parameters", n, len(s.params)))
	}
	for i := 0; i < n; i++ {
		setParam(L, s.params[i], i+2)
	}
	return s.run(L, true)
}

// run executes the statement with its bound values (copied from the
// parameters when fromParams; a legacy statement has loaded s.args) and
// pushes the result as execute does.
func (s *sqlStmt) run(L *lua.LState, fromParams bool) int {
	if fromParams {
		for i, p := range s.params {
			s.args[i] = p.val
		}
	}
	res, err := s.st.Execute(s.c.ctx(), s.args)
	return s.c.done(L, res, err, "<prepared statement>", atCaller)
}

// stmtExecuteRandom is stmt:execute_random(count, lo, hi [, span]), a
// sysbench-go extension for the loops of the bundled OLTP scripts: count
// times, set the first parameter to sysbench.rand.default(lo, hi) (and the
// second to that value plus span, when span is given) and execute. The
// draws, queries, counters and errors are those of the same loop written
// in Lua, without its two Lua→Go calls and a method lookup per query.
//
// The first argument may also be an array of statements: one is picked
// first with sysbench.rand.uniform(1, #array), as the OLTP scripts pick a
// table, saving that call too.
func stmtExecuteRandom(L *lua.LState) int {
	var s *sqlStmt
	if list, ok := L.Get(1).(*lua.LTable); ok {
		n := list.Len()
		if n == 0 {
			luajit.ArgError(L, 1, "empty statement list")
		}
		at := func(i int) *sqlStmt {
			if ud, ok := list.RawGetInt(i).(*lua.LUserData); ok {
				if s, ok := ud.Value.(*sqlStmt); ok {
					return s
				}
			}
			luajit.ArgError(L, 1, "statement list holds something else than statements")
			return nil
		}
		// The first statement's state is this one: its generator draws.
		s = at(int(at(1).c.rt.rand.Uniform(1, int64(n))))
		if s.closed || s.c.closed {
			s.unusable(L, atCaller)
		}
	} else {
		s = checkStmt(L, 1, atCaller)
	}
	count := luajit.CheckInt(L, 2)
	lo, hi := checkUint32Arg(L, 3), checkUint32Arg(L, 4)
	ranged := L.GetTop() >= 5
	var span float64
	need := 1
	if ranged {
		span, need = float64(luajit.CheckNumber(L, 5)), 2
	}
	if s.legacy != nil || len(s.params) < need {
		raiseAt(L, atCaller, "execute_random needs a statement with %d bound parameter(s)", need)
	}
	r := s.c.rt.rand
	for i := 0; i < count; i++ {
		id := float64(r.Default(lo, hi))
		setParamNumber(s.params[0], id)
		if ranged {
			setParamNumber(s.params[1], id+span)
		}
		L.Pop(s.run(L, true))
	}
	return 0
}

func stmtClose(L *lua.LState) int {
	s := checkUD[*sqlStmt](L, 1, stmtType)
	if s.c.closed {
		s.c.alert(alertClosed)
	} else if !s.closed {
		s.closed = true
		_ = s.st.Close()
		s.c.forget(s)
	}
	L.Push(lua.LNumber(0))
	return 1
}

// forget drops a closed statement from the connection's list, which would
// otherwise grow by one for every event of a script that prepares and
// closes a statement per event. The search starts with the newest.
func (c *sqlConn) forget(s *sqlStmt) {
	for i := len(c.stmts) - 1; i >= 0; i-- {
		if c.stmts[i] == s {
			copy(c.stmts[i:], c.stmts[i+1:])
			c.stmts[len(c.stmts)-1] = nil
			c.stmts = c.stmts[:len(c.stmts)-1]
			return
		}
	}
}

// setParam sets a parameter from the Lua value at stack index n.
func setParam(L *lua.LState, p *sqlParam, n int) {
	v := L.Get(n)
	if v == lua.LNil {
		p.val.Null = true
		return
	}
	if p.val.Type == drivers.TypeBigInt || p.val.Type == drivers.TypeDouble {
		if f, ok := v.(lua.LNumber); ok { // the common case: per query
			setParamNumber(p, float64(f))
			return
		}
		if setParamCdata(p, v) {
			return
		}
		setParamNumber(p, float64(luajit.CheckNumber(L, n)))
		return
	}
	var s string
	switch x := v.(type) {
	case lua.LString:
		s = string(x)
	case lua.LNumber:
		s = x.String()
	default:
		luajit.ArgError(L, n, "string expected")
	}
	setParamString(p, s)
}

// setParamNumber sets a parameter to the Lua number f.
func setParamNumber(p *sqlParam, f float64) {
	p.val.Null = false
	switch p.val.Type {
	case drivers.TypeBigInt:
		p.val.Int = int64(f)
	case drivers.TypeDouble:
		p.val.Float = f
	default:
		setParamString(p, lua.LNumber(f).String())
	}
}

func setParamString(p *sqlParam, s string) {
	p.val.Null = false
	if len(s) > p.maxLen {
		s = s[:p.maxLen]
	}
	p.val.Str = append(p.val.Str[:0], s...)
}

// paramSetRandStr is every parameter's p:set_rand_str(template).
func paramSetRandStr(L *lua.LState) int {
	p := checkParam(L, 1)
	tmpl := luajit.CheckString(L, 2)
	if p.val.Type != drivers.TypeVarChar {
		raiseAt(L, atCaller, "Unsupported argument type: %d", p.val.Type)
	}
	p.val.Null = false
	if len(tmpl) > p.maxLen {
		tmpl = tmpl[:p.maxLen]
	}
	p.val.Str = p.rt.rand.StringTemplate(p.val.Str[:0], tmpl)
	return 0
}

func resultFetchRow(L *lua.LState) int {
	r := checkUD[*sqlResult](L, 1, resultType)
	if !r.set {
		return r.misuse(L, "attempt to fetch row from an invalid result set")
	}
	if !r.r.Next() {
		if r.r.NRows() == 0 || r.r.NFields() == 0 {
			r.c.alert("attempt to fetch row from an empty result set")
		}
		L.Push(lua.LNil)
		return 1
	}
	n := r.r.NFields()
	t := L.CreateTable(n, 0)
	for i := 0; i < n; i++ {
		if v, ok := r.r.Value(i); ok {
			t.RawSetInt(i+1, lua.LString(v))
		}
	}
	L.Push(t)
	return 1
}

// misuse answers fetch_row on a result that is no result set (any more):
// an ALERT, and nil.
func (r *sqlResult) misuse(L *lua.LState, alert string) int {
	if r.c.closed {
		alert = alertClosed
	}
	r.c.alert(alert)
	L.Push(lua.LNil)
	return 1
}

func resultFree(L *lua.LState) int {
	r := checkUD[*sqlResult](L, 1, resultType)
	if !r.set {
		if r.c.closed {
			r.c.alert(alertClosed)
		} else {
			r.c.alert("attempt to free an invalid result set")
		}
		raiseAt(L, atCaller, freeFailed)
	}
	r.c.dropResult()
	return pushOK(L, lvFreeFailed)
}

// --- the 0.5-era API: sysbench.db.* on one implicit connection ---

func legacyConn(L *lua.LState) *sqlConn {
	rt := getRuntime(L)
	if rt.legacy != nil && !rt.legacy.closed {
		return rt.legacy
	}
	log := rt.env.sqlLog()
	d, name, err := rt.env.openDriver("")
	if err != nil {
		log.Fatalf("%v", err)
		raiseAt(L, atCaller, "DB initialization failed")
	}
	L.SetGlobal("db_driver", lua.LString(name))
	c, err := connect(L, rt, d, name)
	if err != nil {
		raiseAt(L, atCaller, "Failed to connect to the database")
	}
	rt.legacy = c
	return c
}

// legacyRaise maps errors of the 0.5-era API: ignorable ones restart the
// event, fatal ones fail with the call's name. countFailure counts them.
func legacyRaise(L *lua.LState, c *sqlConn, err error, call string) {
	c.dropResult()
	de := drivers.AsError(err)
	if de != nil {
		c.rt.countFailure(de)
		if de.Kind != drivers.Fatal {
			t := L.CreateTable(0, 1)
			t.RawSetString("errcode", lua.LNumber(restartEvent))
			L.Error(t, 0)
		}
	}
	raiseAt(L, atCaller, "%s failed", call)
}

func registerLegacyDB(L *lua.LState, sb *lua.LTable) {
	db := funcTable(L, map[string]lua.LGFunction{
		"connect": func(L *lua.LState) int { legacyConn(L); return 0 },
		"disconnect": func(L *lua.LState) int {
			if rt := getRuntime(L); rt.legacy != nil {
				rt.legacy.close()
				rt.legacy = nil
			}
			return 0
		},
		"query": func(L *lua.LState) int {
			c := legacyConn(L)
			c.dropResult()
			res, err := c.conn.Query(c.ctx(), luajit.CheckString(L, 1))
			if err != nil {
				legacyRaise(L, c, err, "db_query()")
			}
			c.rt.count(metrics.Counter(res.Counter()))
			res.Close()
			return 0
		},
		"bulk_insert_init": func(L *lua.LState) int {
			c := legacyConn(L)
			L.Insert(c.ud, 1)
			connBulkInit(L)
			return 0
		},
		"bulk_insert_next": func(L *lua.LState) int {
			c := legacyConn(L)
			L.Insert(c.ud, 1)
			connBulkNext(L)
			return 0
		},
		"bulk_insert_done": func(L *lua.LState) int {
			// The reference's db_bulk_insert_done() ignores a failed
			// flush (the driver has printed it); the rows stay buffered.
			c := legacyConn(L)
			if c.bulkFlush() == nil {
				c.bulk = nil
			}
			return 0
		},
		"prepare": func(L *lua.LState) int {
			c := legacyConn(L)
			q := luajit.CheckString(L, 1)
			st, err := c.conn.Prepare(c.ctx(), q)
			if err != nil {
				legacyRaise(L, c, err, "db_prepare()")
			}
			s := &sqlStmt{c: c, st: st}
			c.stmts = append(c.stmts, s)
			ud := L.NewUserData()
			ud.Value = s
			L.SetMetatable(ud, L.GetTypeMetatable(stmtType))
			L.Push(ud)
			return 1
		},
		"bind_param": func(L *lua.LState) int {
			s := checkStmt(L, 1, atCaller)
			t := luajit.CheckTable(L, 2)
			s.legacy = t
			s.args = make([]drivers.Value, t.Len())
			for i := range s.args {
				switch t.RawGetInt(i + 1).(type) {
				case lua.LNumber:
					s.args[i].Type = drivers.TypeBigInt
				default:
					s.args[i].Type = drivers.TypeVarChar
				}
			}
			return 0
		},
		"bind_result": func(L *lua.LState) int { return 0 },
		"execute": func(L *lua.LState) int {
			s := checkStmt(L, 1, atCaller)
			s.loadLegacy(L)
			res, err := s.st.Execute(s.c.ctx(), s.args)
			if err != nil {
				legacyRaise(L, s.c, err, "db_execute()")
			}
			cnt := res.Counter()
			s.c.rt.count(metrics.Counter(cnt))
			s.c.keep(res, cnt)
			L.Push(s.c.resUD)
			return 1
		},
		"close":         func(L *lua.LState) int { stmtClose(L); return 0 },
		"store_results": func(L *lua.LState) int { return 0 },
		"free_results": func(L *lua.LState) int {
			if ud, ok := L.Get(1).(*lua.LUserData); ok {
				if r, ok := ud.Value.(*sqlResult); ok && r.set {
					r.c.dropResult()
				}
			}
			return 0
		},
	})
	db.RawSetString("DB_ERROR_NONE", lua.LNumber(0))
	db.RawSetString("DB_ERROR_RESTART_TRANSACTION", lua.LNumber(1))
	db.RawSetString("DB_ERROR_FAILED", lua.LNumber(2))
	sb.RawSetString("db", db)
}

// loadLegacy reads the current values of a 0.5-era bound parameter table.
func (s *sqlStmt) loadLegacy(L *lua.LState) {
	if s.legacy == nil {
		return
	}
	for i := range s.args {
		v := s.legacy.RawGetInt(i + 1)
		a := &s.args[i]
		a.Null = v == lua.LNil
		switch x := v.(type) {
		case lua.LNumber:
			f := float64(x)
			if f == float64(int64(f)) {
				a.Type, a.Int = drivers.TypeBigInt, int64(f)
			} else {
				a.Type, a.Float = drivers.TypeDouble, f
			}
		case lua.LString:
			a.Type = drivers.TypeVarChar
			a.Str = append(a.Str[:0], x...)
		case lua.LBool:
			a.Type = drivers.TypeBigInt
			a.Int = 0
			if x {
				a.Int = 1
			}
		}
	}
}
