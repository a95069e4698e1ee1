package luaapi

import (
	"context"
	"io"
	goruntime "runtime"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/mysql"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/internal/allocs"
	bundled "github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
)

// Every worker thread holds a Lua state, so at --threads=512 the states are
// the process's memory. One running oltp_read_write (its statements
// prepared on the dry-run driver) takes ~160 KiB of live heap; it took 259
// while tables were made with gopher-lua's NewTable (room for 32 items and
// 32 keys each), and 195 or 219 with only one of the two fixed. The
// LuaJIT libraries (bit, jit, ffi) are filled on first use: made eagerly
// they added 13 KiB. LuaJIT's call depth (16,384 frames, from 200) adds
// the call stack's index, 16 KiB. Statement parameters as tables, as the
// reference's, each holding its own set (one lookup per p:set(v)), took it
// from 184 to 198 KiB: some 500 bytes for each of its parameters.
func TestWorkerStateMemory(t *testing.T) {
	const workers = 32
	const limit = 202 << 10 // bytes of live heap per worker
	s := loadDryRun(t, "oltp_read_write", workers)
	st := metrics.NewHandle(0) // shared: the engine's latency shards are not the state's
	before := liveHeap()
	ws := make([]engine.Worker, 0, workers)
	for tid := range workers {
		w, err := s.NewWorker(context.Background(), tid, st)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Init(context.Background()); err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	per := (liveHeap() - before) / workers
	for _, w := range ws {
		w.Close()
	}
	t.Logf("live heap per worker state: %d KiB", per>>10)
	if per > limit {
		t.Errorf("a worker's Lua state holds %d KiB of live heap, more than %d KiB", per>>10, limit>>10)
	}
}

// loadDryRun loads a bundled script for a run of threads workers on the
// MySQL dry-run driver, its options at their defaults. It is closed when
// the test ends.
func loadDryRun(t testing.TB, name string, threads int) *Script {
	t.Helper()
	values := options.NewValues()
	env := &Env{
		Values: values, Drivers: []drivers.Factory{mysql.Factory}, DriverName: "mysql",
		DriverConfig: drivers.Config{Values: values, DryRun: true},
		Out:          io.Discard, Threads: threads, Command: "run", Bundled: bundled.Scripts, Ctx: context.Background(),
	}
	s, err := Load(env, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	for _, o := range s.Options() {
		if !o.NoDefault {
			values.SetDefault(o.Name, o.Default)
		}
	}
	return s
}

func liveHeap() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The bundled point-select event, on the dry-run driver (which allocates
// nothing per query), allocates nothing either: at 40000 queries/s every
// allocation is garbage the collector must chase while the server waits.
// Pushing the thread id into event() was one: a Go float64 boxed into
// gopher-lua's LValue interface on every call.
func TestEventAllocs(t *testing.T) {
	s := loadDryRun(t, "oltp_point_select", 4)
	ctx := context.Background()
	w, err := s.NewWorker(ctx, 3, metrics.NewHandle(0)) // not 0: Go boxes zero values for free
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Init(ctx); err != nil {
		t.Fatal(err)
	}
	event := func() {
		if _, err := w.Event(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 { // first events cache their lookups
		event()
	}
	if perCall := allocs.PerRun(1000, event); perCall > 0 {
		t.Errorf("an oltp_point_select event allocates %.2f objects", perCall)
	}
}
