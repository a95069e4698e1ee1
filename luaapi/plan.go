package luaapi

import (
	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// An event plan is a bundled workload's event as Go runs it: the same
// statements, random draws, parameter values, counters and errors as the
// Lua helpers it stands for, in their order, with no Lua between them.
// Each event of oltp_read_write otherwise enters the Lua VM, calls a
// dozen Go functions from it and returns: on gopher-lua that was half of
// the client's CPU per event.
//
// The bundled oltp_common builds a plan on a thread's first event, from
// the statements it prepared, when its helpers are its own (a script that
// replaced one keeps its Lua event), and binds it to the script's event
// function: while the worker's event is that function, the worker runs
// the plan instead of calling into Lua (worker.Event). Its steps are the
// sysbench-go extensions the Lua helpers use (stmt:execute,
// stmt:execute_random) and the two loops of the write helpers.

type stepKind uint8

const (
	stepExecute      stepKind = iota // execute a statement as bound
	stepRandom                       // stmt:execute_random(count, lo, hi [, span])
	stepUpdateString                 // per query: parameter 1 a random string, 2 a random id
	stepDeleteInsert                 // per pair: delete by a random id, insert it back
)

type planStep struct {
	kind   stepKind
	stmts  []*sqlStmt // one statement, or one per table picked at random
	list   bool       // stmts was an array: a table is picked, even of one
	others []*sqlStmt // stepDeleteInsert: the inserts, by table as stmts
	count  int
	lo, hi int64
	span   float64
	ranged bool
	tmpl   [2]string
	where  string // the position of the step in the script, for fatal errors
}

type eventPlan struct {
	rt    *runtime
	steps []planStep
	event *lua.LFunction // the Lua event this plan stands for, once bound
}

const planType = "sysbench_event_plan"

func registerPlan(L *lua.LState, sb *lua.LTable) {
	mt := L.NewTypeMetatable(planType)
	mt.RawSetString("__index", funcTable(L, map[string]lua.LGFunction{
		"execute":        planExecute,
		"execute_random": planExecuteRandom,
		"update_string":  planUpdateString,
		"delete_insert":  planDeleteInsert,
		"run":            planRun,
		"bind":           planBind,
	}))
	sb.RawSetString("event_plan", L.NewFunction(func(L *lua.LState) int {
		ud := L.NewUserData()
		ud.Value = &eventPlan{rt: getRuntime(L)}
		ud.Metatable = mt
		L.Push(ud)
		return 1
	}))
}

func checkPlan(L *lua.LState) *eventPlan {
	return checkUD[*eventPlan](L, 1, planType)
}

// planStatements reads argument n: a statement, or an array of them (one
// per table), and says which.
func planStatements(L *lua.LState, n int) ([]*sqlStmt, bool) {
	if list, ok := L.Get(n).(*lua.LTable); ok {
		k := list.Len()
		if k == 0 {
			luajit.ArgError(L, n, "empty statement list")
		}
		out := make([]*sqlStmt, k)
		for i := range out {
			var s *sqlStmt
			isStmt := false
			if ud, ok := list.RawGetInt(i + 1).(*lua.LUserData); ok {
				s, isStmt = ud.Value.(*sqlStmt)
			}
			if !isStmt {
				luajit.ArgError(L, n, "statement list holds something else than statements")
			}
			out[i] = s
		}
		return out, true
	}
	return []*sqlStmt{checkStmt(L, n, atCaller)}, false
}

// needParams refuses a statement with fewer than n bound parameters.
func needParams(L *lua.LState, stmts []*sqlStmt, n int) {
	for _, s := range stmts {
		if s.legacy != nil || len(s.params) < n {
			raiseAt(L, atCaller, "the plan needs statements with %d bound parameter(s)", n)
		}
	}
}

// needStrings refuses statements whose parameters at the indexes are not
// strings, which set_rand_str refuses.
func needStrings(L *lua.LState, stmts []*sqlStmt, index ...int) {
	for _, s := range stmts {
		for _, i := range index {
			if t := s.params[i].val.Type; t != drivers.TypeVarChar {
				raiseAt(L, atCaller, "Unsupported argument type: %d", t)
			}
		}
	}
}

func (p *eventPlan) add(L *lua.LState, st planStep) int {
	st.where = where(L, atCaller)
	p.steps = append(p.steps, st)
	return 0
}

// planExecute is plan:execute(stmt).
func planExecute(L *lua.LState) int {
	p := checkPlan(L)
	st := planStep{kind: stepExecute}
	st.stmts, st.list = planStatements(L, 2)
	return p.add(L, st)
}

// planExecuteRandom is plan:execute_random(stmt_or_list, count, lo, hi
// [, span]), stmt:execute_random's step.
func planExecuteRandom(L *lua.LState) int {
	p := checkPlan(L)
	st := planStep{kind: stepRandom, count: luajit.CheckInt(L, 3), lo: checkUint32Arg(L, 4), hi: checkUint32Arg(L, 5)}
	st.stmts, st.list = planStatements(L, 2)
	need := 1
	if L.GetTop() >= 6 {
		st.span, st.ranged, need = float64(luajit.CheckNumber(L, 6)), true, 2
	}
	needParams(L, st.stmts, need)
	return p.add(L, st)
}

// planUpdateString is plan:update_string(list, count, lo, hi, template):
// a table picked at random, then count times its statement's parameter 1
// set to a random string of the template, parameter 2 to a random id
// (execute_non_index_updates).
func planUpdateString(L *lua.LState) int {
	p := checkPlan(L)
	st := planStep{kind: stepUpdateString, count: luajit.CheckInt(L, 3),
		lo: checkUint32Arg(L, 4), hi: checkUint32Arg(L, 5), tmpl: [2]string{luajit.CheckString(L, 6)}}
	st.stmts, st.list = planStatements(L, 2)
	needParams(L, st.stmts, 2)
	needStrings(L, st.stmts, 0)
	return p.add(L, st)
}

// planDeleteInsert is plan:delete_insert(deletes, inserts, count, lo, hi,
// c_template, pad_template): a table picked at random, then count times
// two random ids (id, k), the insert's parameters 3 and 4 random strings,
// the delete run with id and the insert with id and k
// (execute_delete_inserts).
func planDeleteInsert(L *lua.LState) int {
	p := checkPlan(L)
	st := planStep{kind: stepDeleteInsert, count: luajit.CheckInt(L, 4), lo: checkUint32Arg(L, 5),
		hi: checkUint32Arg(L, 6), tmpl: [2]string{luajit.CheckString(L, 7), luajit.CheckString(L, 8)}}
	st.stmts, st.list = planStatements(L, 2)
	st.others, _ = planStatements(L, 3)
	if len(st.stmts) != len(st.others) {
		luajit.ArgError(L, 3, "as many inserts as deletes")
	}
	needParams(L, st.stmts, 1)
	needParams(L, st.others, 4)
	needStrings(L, st.others, 2, 3)
	return p.add(L, st)
}

// planBind is plan:bind(event): the worker runs the plan in place of
// event from now on, while event is the script's event function;
// plan:bind(nil) ends that (statements prepared again, say).
func planBind(L *lua.LState) int {
	p := checkPlan(L)
	if L.Get(2) == lua.LNil {
		p.event = nil
		if p.rt.plan == p {
			p.rt.plan = nil
		}
		return 0
	}
	p.event = luajit.CheckFunction(L, 2)
	p.rt.plan = p
	return 0
}

// planRun is plan:run(): one event, from Lua.
func planRun(L *lua.LState) int {
	p := checkPlan(L)
	if err := p.run(L); err != nil {
		panic(err)
	}
	return 0
}

// run runs the plan's steps once. An error is the value the Lua helpers
// would have raised: a RESTART_EVENT descriptor for an ignorable SQL
// error, else the message (or sql_error_ignorable's own error).
func (p *eventPlan) run(L *lua.LState) *lua.ApiError {
	r := p.rt.rand
	for i := range p.steps {
		st := &p.steps[i]
		s := st.stmts[0]
		if st.list {
			// sysbench.rand.uniform(1, #list), as the helpers pick a table.
			s = st.stmts[r.Uniform(1, int64(len(st.stmts)))-1]
		}
		switch st.kind {
		case stepExecute:
			if e := s.exec(L, st.where); e != nil {
				return e
			}
		case stepRandom:
			for range st.count {
				id := float64(r.Default(st.lo, st.hi))
				setParamNumber(s.params[0], id)
				if st.ranged {
					setParamNumber(s.params[1], id+st.span)
				}
				if e := s.exec(L, st.where); e != nil {
					return e
				}
			}
		case stepUpdateString:
			for range st.count {
				s.params[0].setTemplate(st.tmpl[0])
				setParamNumber(s.params[1], float64(r.Default(st.lo, st.hi)))
				if e := s.exec(L, st.where); e != nil {
					return e
				}
			}
		case stepDeleteInsert:
			ins := st.others[indexOf(st.stmts, s)] // the same table's
			for range st.count {
				id := float64(r.Default(st.lo, st.hi))
				k := float64(r.Default(st.lo, st.hi))
				ins.params[2].setTemplate(st.tmpl[0])
				ins.params[3].setTemplate(st.tmpl[1])
				setParamNumber(s.params[0], id)
				if e := s.exec(L, st.where); e != nil {
					return e
				}
				setParamNumber(ins.params[0], id)
				setParamNumber(ins.params[1], k)
				if e := ins.exec(L, st.where); e != nil {
					return e
				}
			}
		}
	}
	return nil
}

func indexOf(list []*sqlStmt, s *sqlStmt) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return 0
}

// exec runs the statement as stmt:execute() does, from Go: counted, its
// result kept as the connection's, an error returned as the value
// execute would have raised (where is the position a fatal error names).
func (s *sqlStmt) exec(L *lua.LState, where string) *lua.ApiError {
	if s.closed || s.c.closed {
		return &lua.ApiError{Type: lua.ApiErrorRun, Object: lua.LString(where + "attempt to use a closed statement")}
	}
	for i, p := range s.params {
		s.args[i] = p.val
	}
	res, err := s.st.Execute(s.c.ctx(), s.args)
	if err != nil {
		return s.c.failure(L, err, "<prepared statement>", where)
	}
	cnt := res.Counter()
	s.c.rt.count(metrics.Counter(cnt))
	s.c.keep(res, cnt)
	return nil
}

// setTemplate is param:set_rand_str(template) on a string parameter.
func (p *sqlParam) setTemplate(tmpl string) {
	p.val.Null = false
	if len(tmpl) > p.maxLen {
		tmpl = tmpl[:p.maxLen]
	}
	p.val.Str = p.rt.rand.StringTemplate(p.val.Str[:0], tmpl)
}
