package builtin

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

func TestCountPrimes(t *testing.T) {
	// Primes below 10000 are 1229; the count starts at 3, so 2 is left out.
	cases := map[uint64]uint64{3: 0, 4: 1, 10: 3, 100: 24, 10000: 1228}
	for max, want := range cases {
		if got := countPrimes(max); got != want {
			t.Errorf("countPrimes(%d) = %d, want %d", max, got, want)
		}
	}
}

func TestCPU(t *testing.T) {
	tt, err := newCPU(testEnv(1, "--cpu-max-prime=100"))
	if err != nil {
		t.Fatal(err)
	}
	if got := printMode(tt); got != "Prime numbers limit: 100\n\n" {
		t.Errorf("PrintMode = %q", got)
	}
	w, _ := tt.NewWorker(context.Background(), 0, metrics.NewHandle(0))
	if n := runEvents(t, w, 3); n != 3 {
		t.Errorf("ran %d events, want 3 (cpu never stops by itself)", n)
	}
	if p := w.(*cpuWorker).primes; p != 24 {
		t.Errorf("primes = %d, want 24", p)
	}
	golden(t, "cpu.report", reportCumulative(t, tt, testStat()))

	env := testEnv(1)
	b := logTo(env, logging.Info)
	tt, _ = newCPU(env)
	tt.PrintMode(b)
	if got := b.String(); got != "Doing CPU performance benchmark\n\nPrime numbers limit: 10000\n\n" {
		t.Errorf("PrintMode at verbosity 4 = %q", got)
	}
}

func TestMemoryPrintMode(t *testing.T) {
	tt, err := newMemory(testEnv(1))
	if err != nil {
		t.Fatal(err)
	}
	// As the reference's test.memory.txt.
	want := "Running memory speed test with the following options:\n" +
		"  block size: 1KiB\n  total size: 102400MiB\n  operation: write\n  scope: global\n\n"
	if got := printMode(tt); got != want {
		t.Errorf("PrintMode = %q, want %q", got, want)
	}
	tt, _ = newMemory(testEnv(1, "--memory-block-size=8K", "--memory-total-size=1G",
		"--memory-oper=none", "--memory-scope=local"))
	want = "Running memory speed test with the following options:\n" +
		"  block size: 8KiB\n  total size: 1024MiB\n  operation: none\n  scope: local\n\n"
	if got := printMode(tt); got != want {
		t.Errorf("PrintMode = %q, want %q", got, want)
	}
}

// --memory-total-size is split between threads; each worker stops after
// its share, whatever the operation and access mode.
func TestMemoryEvents(t *testing.T) {
	for _, oper := range []string{"write", "read", "none"} {
		for _, access := range []string{"seq", "rnd"} {
			for _, scope := range []string{"global", "local"} {
				name := oper + "/" + access + "/" + scope
				tt, err := newMemory(testEnv(2, "--memory-block-size=4K", "--memory-total-size=1M",
					"--memory-oper="+oper, "--memory-access-mode="+access, "--memory-scope="+scope, "--rand-seed=1"))
				if err != nil {
					t.Fatal(err)
				}
				ctx := context.Background()
				if err := tt.Init(ctx); err != nil {
					t.Fatalf("%s: Init: %v", name, err)
				}
				total := 0
				var bufs [][]uint64
				for tid := 0; tid < 2; tid++ {
					w, _ := tt.NewWorker(ctx, tid, metrics.NewHandle(tid))
					bufs = append(bufs, w.(*memoryWorker).buf)
					total += runEvents(t, w, 1000)
				}
				if total != 256 {
					t.Errorf("%s: %d events, want 256 (1M / 4K)", name, total)
				}
				sameBuf := &bufs[0][0] == &bufs[1][0]
				if sameBuf != (scope == "global") {
					t.Errorf("%s: threads share a buffer = %v", name, sameBuf)
				}
				var nonzero int
				for _, v := range bufs[0] {
					if v != 0 {
						nonzero++
					}
				}
				if wrote := nonzero > 0; wrote != (oper == "write") {
					t.Errorf("%s: %d non-zero words after the run", name, nonzero)
				}
				if access == "seq" && oper == "write" && (bufs[0][0] != 512 || bufs[0][511] != 1) {
					t.Errorf("%s: sequential write pattern %d..%d", name, bufs[0][0], bufs[0][511])
				}
				_ = tt.Done(ctx)
			}
		}
	}
}

func TestMemoryUnlimited(t *testing.T) {
	tt, _ := newMemory(testEnv(1, "--memory-total-size=0"))
	ctx := context.Background()
	if err := tt.Init(ctx); err != nil {
		t.Fatal(err)
	}
	defer tt.Done(ctx)
	w, _ := tt.NewWorker(ctx, 0, metrics.NewHandle(0))
	if n := runEvents(t, w, 100); n != 100 {
		t.Errorf("ran %d events, want 100 (no total size: no limit)", n)
	}
}

// HugeTLB pages are usually not reserved on test machines: either the
// allocation works or the error is the reference's.
func TestMemoryHugeTLB(t *testing.T) {
	tt, _ := newMemory(testEnv(1, "--memory-hugetlb"))
	ctx := context.Background()
	err := tt.Init(ctx)
	if err == nil {
		defer tt.Done(ctx)
		w, _ := tt.NewWorker(ctx, 0, metrics.NewHandle(0))
		runEvents(t, w, 10)
		return
	}
	want := "Failed to allocate 4194304 bytes from HugeTLB memory. errno = "
	if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), ")\nFATAL: Failed to allocate buffer!") {
		t.Errorf("error = %q", err)
	}
}

func TestMemoryReports(t *testing.T) {
	tt, _ := newMemory(testEnv(1))
	golden(t, "memory.report", reportCumulative(t, tt, testStat()))
	tt, _ = newMemory(testEnv(1, "--memory-oper=none"))
	golden(t, "memory.report-none", reportCumulative(t, tt, testStat()))

	var b bytes.Buffer
	s := &report.Stat{TimeTotal: 3, TimeInterval: 1, Events: 2048}
	if !tt.ReportIntermediate(&b, s) || b.String() != "[ 3s ] 2.00 MiB/sec\n" {
		t.Errorf("intermediate = %q", b.String())
	}
	if eo, ok := tt.(interface{ EventsOverride() (uint64, bool) }); !ok {
		t.Error("memory does not override --events")
	} else if n, on := eo.EventsOverride(); n != 0 || !on {
		t.Errorf("EventsOverride = %d, %v", n, on)
	}
}

func TestThreads(t *testing.T) {
	env := testEnv(2, "--thread-yields=50", "--thread-locks=3")
	tt, err := newThreads(env)
	if err != nil {
		t.Fatal(err)
	}
	if got := printMode(tt); got != "" {
		t.Errorf("PrintMode = %q, want nothing at verbosity 3", got)
	}
	b := logTo(env, logging.Debug)
	tt, _ = newThreads(env)
	tt.PrintMode(b)
	if got := b.String(); got != "Doing thread subsystem performance test\nThread yields per test: 50 Locks used: 3\n" {
		t.Errorf("PrintMode at verbosity 5 = %q", got)
	}
	done := make(chan int)
	for tid := 0; tid < 2; tid++ {
		go func() {
			w, _ := tt.NewWorker(context.Background(), tid, metrics.NewHandle(tid))
			done <- runEvents(t, w, 7)
		}()
	}
	events := <-done + <-done
	th := tt.(*threadsTest)
	var locked uint64
	for i := range th.locks {
		locked += th.locks[i].n
	}
	if events != 14 || locked != 14*50 {
		t.Errorf("%d events, %d lock/yield rounds; want 14, 700", events, locked)
	}
	// Round robin: 14 events over 3 locks.
	if a, b, c := th.locks[0].n, th.locks[1].n, th.locks[2].n; a != 5*50 || b != 5*50 || c != 4*50 {
		t.Errorf("lock use %d/%d/%d, want 250/250/200", a, b, c)
	}
	golden(t, "threads.report", reportCumulative(t, tt, testStat()))
}

func TestMutex(t *testing.T) {
	env := testEnv(2, "--mutex-num=16", "--mutex-locks=1000", "--mutex-loops=10")
	tt, err := newMutex(env)
	if err != nil {
		t.Fatal(err)
	}
	if got := printMode(tt); got != "" {
		t.Errorf("PrintMode = %q, want nothing at verbosity 3", got)
	}
	done := make(chan int)
	for tid := 0; tid < 2; tid++ {
		go func() {
			w, _ := tt.NewWorker(context.Background(), tid, metrics.NewHandle(tid))
			done <- runEvents(t, w, 100)
		}()
	}
	if events := <-done + <-done; events != 2 {
		t.Errorf("%d events, want one per thread", events)
	}
	m := tt.(*mutexTest)
	var locked uint64
	used := 0
	for i := range m.locks {
		locked += m.locks[i].n
		if m.locks[i].n > 0 {
			used++
		}
	}
	if locked != 2000 {
		t.Errorf("%d locks taken, want 2000", locked)
	}
	if used < 8 {
		t.Errorf("only %d of 16 mutexes used: not random", used)
	}
	golden(t, "mutex.report", reportCumulative(t, tt, testStat()))

	// --mutex-locks=0 still takes one lock, as the reference's do-while.
	tt, _ = newMutex(testEnv(1, "--mutex-num=1", "--mutex-locks=0"))
	w, _ := tt.NewWorker(context.Background(), 0, metrics.NewHandle(0))
	runEvents(t, w, 5)
	if n := tt.(*mutexTest).locks[0].n; n != 1 {
		t.Errorf("--mutex-locks=0 took %d locks, want 1", n)
	}
}
