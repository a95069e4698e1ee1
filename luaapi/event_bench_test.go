package luaapi

import (
	"context"
	"github.com/sysbench-go/sysbench-go/metrics"
	"strings"
	"testing"
)

// BenchmarkDryRunEvent is one event of a bundled workload on the dry-run
// driver, in one worker's Lua state: the client's cost per event, without
// the engine's loop or a server.
func BenchmarkDryRunEvent(b *testing.B) {
	for _, c := range []struct {
		name  string
		stmts bool
	}{{"oltp_point_select", false}, {"oltp_read_write", false}, {"oltp_read_write/statement-stats", true}} {
		name := strings.TrimSuffix(c.name, "/statement-stats")
		b.Run(c.name, func(b *testing.B) {
			s := loadDryRun(b, name, 1)
			s.env.StatementStats = c.stmts
			ctx := context.Background()
			w, err := s.NewWorker(ctx, 0, metrics.NewHandle(0))
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			if err := w.Init(ctx); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := w.Event(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
