package luaapi

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sysbench-go/sysbench-go/luajit"
	"github.com/sysbench-go/sysbench-go/report"

	lua "github.com/yuin/gopher-lua"
)

// statTable converts a report's figures into the table the reference's
// hooks receive (latencies in seconds).
func statTable(L *lua.LState, s *report.Stat) *lua.LTable {
	t := L.CreateTable(0, 24)
	set := func(k string, v float64) { t.RawSetString(k, lua.LNumber(v)) }
	set("threads_running", float64(s.ThreadsRunning))
	set("time_interval", s.TimeInterval)
	set("time_total", s.TimeTotal)
	set("latency_pct", s.LatencyPct)
	set("events", float64(s.Events))
	set("reads", float64(s.Reads))
	set("writes", float64(s.Writes))
	set("other", float64(s.Other))
	set("errors", float64(s.Errors))
	set("reconnects", float64(s.Reconnects))
	set("queue_length", float64(s.QueueLength))
	set("concurrency", float64(s.Concurrency))
	set("latency_min", s.LatencyMin)
	set("latency_max", s.LatencyMax)
	set("latency_avg", s.LatencyAvg)
	set("latency_sum", s.LatencySum)
	// Beyond the reference: every --percentile and its value, so that
	// report_default prints them as the built-in line does.
	if len(s.Percentiles) > 0 && len(s.LatencyPcts) == len(s.Percentiles) {
		ps, vs := L.CreateTable(len(s.Percentiles), 0), L.CreateTable(len(s.Percentiles), 0)
		for i, p := range s.Percentiles {
			ps.Append(lua.LNumber(p))
			vs.Append(lua.LNumber(s.LatencyPcts[i]))
		}
		t.RawSetString("percentiles", ps)
		t.RawSetString("latency_pcts", vs)
	}
	return t
}

// percentileLabels is what report_default prints after "lat (ms,": the
// hook table's percentiles, or --percentile's first when a script built
// the table itself.
func percentileLabels(L *lua.LState, t *lua.LTable) (labels []string, values []float64) {
	ps, ok1 := t.RawGetString("percentiles").(*lua.LTable)
	vs, ok2 := t.RawGetString("latency_pcts").(*lua.LTable)
	if ok1 && ok2 && ps.Len() > 0 && ps.Len() == vs.Len() {
		for i := 1; i <= ps.Len(); i++ {
			labels = append(labels, strconv.FormatFloat(float64(lua.LVAsNumber(ps.RawGetInt(i))), 'f', -1, 64))
			values = append(values, float64(lua.LVAsNumber(vs.RawGetInt(i))))
		}
		values[0] = num(t, "latency_pct") // the script may have changed it
		return labels, values
	}
	opt := lua.LVAsString(getPath(L, "sysbench", "opt", "percentile"))
	if i := strings.IndexByte(opt, ','); i >= 0 {
		opt = opt[:i]
	}
	if _, err := strconv.ParseFloat(opt, 64); err != nil || opt == "" {
		opt = "0"
	}
	return []string{opt}, []float64{num(t, "latency_pct")}
}

func num(t *lua.LTable, k string) float64 { return float64(lua.LVAsNumber(t.RawGetString(k))) }

// registerReports creates sysbench.report_default/csv/json.
func registerReports(L *lua.LState, sb *lua.LTable) {
	out := func(L *lua.LState) io.Writer { return getRuntime(L).env.Out }
	sb.RawSetString("report_default", L.NewFunction(func(L *lua.LState) int {
		t := luajit.CheckTable(L, 1)
		sec := num(t, "time_interval")
		labels, values := percentileLabels(L, t)
		w := out(L)
		// The reference's Lua formatter prints "err/s" without a colon.
		fmt.Fprintf(w, "[ %.0fs ] thds: %d tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%s%%): %4.2f err/s %4.2f reconn/s: %4.2f",
			num(t, "time_total"), int64(num(t, "threads_running")), num(t, "events")/sec,
			(num(t, "reads")+num(t, "writes")+num(t, "other"))/sec,
			num(t, "reads")/sec, num(t, "writes")/sec, num(t, "other")/sec,
			labels[0], values[0]*1000, num(t, "errors")/sec, num(t, "reconnects")/sec)
		// Further percentiles after the reference's line, as the
		// built-in intermediate line appends them.
		for i := 1; i < len(labels); i++ {
			fmt.Fprintf(w, " lat (ms,%s%%): %4.2f", labels[i], values[i]*1000)
		}
		fmt.Fprintf(w, "\n")
		return 0
	}))
	sb.RawSetString("report_csv", L.NewFunction(func(L *lua.LState) int {
		t := luajit.CheckTable(L, 1)
		sec := num(t, "time_interval")
		fmt.Fprintf(out(L), "%.0f,%d,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f\n",
			num(t, "time_total"), int64(num(t, "threads_running")), num(t, "events")/sec,
			(num(t, "reads")+num(t, "writes")+num(t, "other"))/sec,
			num(t, "reads")/sec, num(t, "writes")/sec, num(t, "other")/sec,
			num(t, "latency_pct")*1000, num(t, "errors")/sec, num(t, "reconnects")/sec)
		return 0
	}))
	sb.RawSetString("report_json", L.NewFunction(func(L *lua.LState) int {
		t := luajit.CheckTable(L, 1)
		rt := getRuntime(L)
		w := out(L)
		if open := rt.jsonArray(); !*open {
			*open = true
			fmt.Fprintf(w, "[\n")
		} else {
			fmt.Fprintf(w, ",\n")
		}
		sec := num(t, "time_interval")
		fmt.Fprintf(w, "  {\n    \"time\": %4.0f,\n    \"threads\": %d,\n    \"tps\": %4.2f,\n    \"qps\": {\n      \"total\": %4.2f,\n      \"reads\": %4.2f,\n      \"writes\": %4.2f,\n      \"other\": %4.2f\n    },\n    \"latency\": %4.2f,\n    \"errors\": %4.2f,\n    \"reconnects\": %4.2f\n  }",
			num(t, "time_total"), int64(num(t, "threads_running")), num(t, "events")/sec,
			(num(t, "reads")+num(t, "writes")+num(t, "other"))/sec,
			num(t, "reads")/sec, num(t, "writes")/sec, num(t, "other")/sec,
			num(t, "latency_pct")*1000, num(t, "errors")/sec, num(t, "reconnects")/sec)
		return 0
	}))
}

// reportKind tells which report a hook running in the master state makes.
// The reference makes each in a Lua state of its own (the reporting
// thread's, the checkpoint thread's, the main thread's), so report_json
// keeps one JSON array per kind, each closed when its state would close.
type reportKind int

const (
	reportNone reportKind = iota
	reportIntermediate
	reportCheckpoint
	reportFinal
	reportKinds
)

// jsonArray is the flag of the JSON array report_json writes into from
// this state: the current report's in the master state, else the state's.
func (rt *runtime) jsonArray() *bool {
	if s := rt.script; s != nil && rt == s.masterRT && s.hookKind != reportNone {
		return &s.jsonOpen[s.hookKind]
	}
	return &rt.jsonOpen
}

// closeJSON ends a JSON array report_json opened.
func closeJSON(w io.Writer, open *bool) {
	if *open {
		*open = false
		fmt.Fprintf(w, "\n]\n")
	}
}
