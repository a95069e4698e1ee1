package luaapi

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// A command's progress (prepare's, on a terminal): the rows each state's
// bulk inserts sent, by table, and the queries it ran, counted in the
// state's own counters (metrics.RowsHandle) when Env.Rows is set; and
// sysbench.progress.expect(table, rows), beyond the reference, by which a
// script says how many rows a table gets in all, so that the progress
// has a total and a time left. The bundled workloads say it; a script
// that does not gets rows done and their rate.

// rowsHandle is the state's counts, made on first use; nil when nobody
// reads them.
func (rt *runtime) rowsHandle() *metrics.RowsHandle {
	if rt.rows == nil && rt.env.Rows != nil {
		rt.rows = rt.env.Rows.Handle()
	}
	return rt.rows
}

func registerProgress(L *lua.LState, sb *lua.LTable) {
	sb.RawSetString("progress", funcTable(L, map[string]lua.LGFunction{
		"expect": progressExpect,
	}))
}

// progressExpect is sysbench.progress.expect(table, rows): the command
// loads rows rows into table, every thread together. Saying it again
// replaces the number, so every thread may say the whole plan.
func progressExpect(L *lua.LState) int {
	table := L.CheckString(1)
	rows := L.CheckNumber(2)
	if rows < 0 || rows != rows {
		L.ArgError(2, "rows must be 0 or more")
	}
	if r := getRuntime(L).env.Rows; r != nil {
		r.Plan(table, int64(rows))
	}
	return 0
}

// bulkTable is the table a bulk insert's prefix names ("INSERT INTO
// sbtest1(k, c, pad) VALUES", "INSERT IGNORE INTO `db`.`t` ...", "REPLACE
// INTO t"), without quotes; the prefix itself, cut, when it names none.
func bulkTable(prefix string) string {
	fields := strings.Fields(prefix)
	for i, f := range fields {
		if !strings.EqualFold(f, "INTO") || i+1 == len(fields) {
			continue
		}
		name, _, _ := strings.Cut(fields[i+1], "(")
		name = strings.NewReplacer("`", "", `"`, "", "[", "", "]", "").Replace(name)
		if name != "" {
			return name
		}
	}
	if len(prefix) > 40 {
		prefix = prefix[:40]
	}
	return strings.TrimSpace(prefix)
}
