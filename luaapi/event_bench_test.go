package luaapi

import (
	"context"
	"sysbench-go/metrics"
	"testing"
)

// BenchmarkDryRunEvent is one event of a bundled workload on the dry-run
// driver, in one worker's Lua state: the client's cost per event, without
// the engine's loop or a server.
func BenchmarkDryRunEvent(b *testing.B) {
	for _, name := range []string{"oltp_point_select", "oltp_read_write"} {
		b.Run(name, func(b *testing.B) {
			s := loadDryRun(b, name, 1)
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
