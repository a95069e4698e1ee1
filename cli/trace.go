package cli

import (
	"fmt"
	"io"

	"github.com/sysbench-go/sysbench-go/luaapi"
	"github.com/sysbench-go/sysbench-go/options"
)

// traceOptions are the options that show what a workload does
// (docs/writing-workloads.md).
var traceOptions = []options.Option{
	{Name: "trace", Extension: true, Desc: "print to standard error, for the first N events of each thread, every statement as the server receives it (with its values), the rows or error it got and its latency, then the statement mix of those events; standard output is unchanged", Kind: options.Int, Default: "0"},
}

// traceOf is the run's --trace, nil when off; its lines go to w.
func traceOf(v *options.Values, w io.Writer) (*luaapi.Trace, error) {
	n, err := v.Int("trace")
	if err != nil || n < 0 {
		return nil, fmt.Errorf("Invalid value for --trace: '%s' (events per thread, 0 or more)", v.String("trace"))
	}
	if n == 0 {
		return nil, nil
	}
	return luaapi.NewTrace(w, int(n)), nil
}
