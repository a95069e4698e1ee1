package builtin

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

// The work one event does, checked against the reference's event without
// a clock: what a cpu event computes, what a memory event stores, loads and
// draws, and how much of it a run counts. A change of an event's loop that
// skips or adds work fails here; one that keeps the work but changes its
// cost shows only in `BENCH_ONLY=builtin make bench`.

// countPrimes against a sieve, across the limits where the double square
// root bound matters (squares of primes and their neighbours).
func TestCountPrimesMatchesSieve(t *testing.T) {
	t.Parallel()
	const top = 5000
	composite := make([]bool, top)
	for i := 2; i*i < top; i++ {
		for j := i * i; j < top; j += i {
			composite[j] = true
		}
	}
	// below[m]: the primes in [3, m), what an event with --cpu-max-prime=m counts.
	below := make([]uint64, top+1)
	for m := 4; m <= top; m++ {
		below[m] = below[m-1]
		if !composite[m-1] {
			below[m]++
		}
	}
	limits := []int{1, 2, 3, 4, 5, 8, 9, 10, 11, 24, 25, 26, 48, 49, 50, 120, 121, 122, 168, 169, 170}
	for p := 2; p*p+1 <= top; p++ {
		limits = append(limits, p*p-1, p*p, p*p+1)
	}
	limits = append(limits, 1000, 4999, top)
	for _, m := range limits {
		want := uint64(0)
		if m >= 3 {
			want = below[m]
		}
		if got := countPrimes(uint64(m)); got != want {
			t.Errorf("countPrimes(%d) = %d, want %d", m, got, want)
		}
	}
	// The reference's default and a larger limit: 1229 and 9592 primes,
	// 2 left out.
	for m, want := range map[uint64]uint64{10000: 1228, 100000: 9591} {
		if got := countPrimes(m); got != want {
			t.Errorf("countPrimes(%d) = %d, want %d", m, got, want)
		}
	}
}

// workSeed is the --rand-seed of the memory workers of these tests.
const workSeed = 7

// memoryWorkerFor returns worker tid of a memory test of the given options
// and --rand-seed=workSeed (its buffers allocated), and the test.
func memoryWorkerFor(t *testing.T, threads, tid int, opts ...string) (*memoryWorker, *memoryTest) {
	t.Helper()
	env := testEnv(threads, opts...)
	env.RandSeed = workSeed
	tt, err := newMemory(env)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tt.Init(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tt.Done(ctx) })
	w, err := tt.NewWorker(ctx, tid, metrics.NewHandle(tid))
	if err != nil {
		t.Fatal(err)
	}
	return w.(*memoryWorker), tt.(*memoryTest)
}

// One memory event of each operation and access mode does the reference's
// work on the block: the values stored, every word loaded, one draw of the
// thread's generator per word and the offsets drawn from it.
func TestMemoryEventWork(t *testing.T) {
	t.Parallel()
	for _, size := range []int{8, 16, 32, 64, 256, 1024, 4096} {
		for _, access := range []string{"seq", "rnd"} {
			for _, oper := range []string{"write", "read", "none"} {
				name := fmt.Sprintf("%s/%s/%d", access, oper, size)
				w, _ := memoryWorkerFor(t, 1, 0, fmt.Sprintf("--memory-block-size=%d", size),
					"--memory-oper="+oper, "--memory-access-mode="+access,
					"--memory-total-size=0")
				b := w.buf
				n := len(b)
				if n != size/8 {
					t.Fatalf("%s: block of %d words, want %d", name, n, size/8)
				}
				// Distinct non-zero words, so that a read that skips or
				// repeats a word changes the XOR of what it read.
				before := make([]uint64, n)
				for i := range b {
					b[i] = uint64(i+1) * 0x9e3779b97f4a7c15
					before[i] = b[i]
				}
				model := sbrand.NewThread(workSeed, 0)
				if _, err := w.Event(context.Background()); err != nil {
					t.Fatal(err)
				}

				want := append([]uint64(nil), before...)
				var read uint64
				switch {
				case access == "seq" && oper == "write":
					for i := range want {
						want[i] = uint64(n - i) // words from here to the block's end
					}
				case access == "seq" && oper == "read":
					for _, v := range before {
						read ^= v
					}
				case access == "rnd":
					for i := range n {
						k := uint64(model.Float64() * float64(n))
						switch oper {
						case "write":
							want[k] = uint64(i * 8) // the byte offset of the turn
						case "read":
							read ^= before[k]
						}
					}
				}
				for i := range b {
					if b[i] != want[i] {
						t.Errorf("%s: word %d = %d, want %d", name, i, b[i], want[i])
						break
					}
				}
				if oper == "read" && w.sink != read {
					t.Errorf("%s: the event read words whose XOR is %#x, want %#x (every word once)", name, w.sink, read)
				}
				if access == "rnd" {
					// One draw per word, whatever the operation: none too.
					g0, g1 := w.rng.State()
					if m0, m1 := model.State(); g0 != m0 || g1 != m1 {
						t.Errorf("%s: generator not %d draws on", name, n)
					}
				}
			}
		}
	}
}

// A run counts what the reference counts: each thread stops after
// total / block / threads events (integer divisions, the remainder never
// transferred), and MiB transferred is events × block / 2^20.
func TestMemoryEventAccounting(t *testing.T) {
	t.Parallel()
	cases := []struct {
		total, block string
		threads      int
		perThread    int
	}{
		{"1M", "4K", 1, 256},
		{"1M", "4K", 3, 85},
		{"100K", "1K", 2, 50},
		{"1000", "64", 4, 3},
		{"8", "8", 2, 0},
	}
	for _, c := range cases {
		events := 0
		var tt *memoryTest
		for tid := range c.threads {
			var w *memoryWorker
			w, tt = memoryWorkerFor(t, c.threads, tid, "--memory-total-size="+c.total, "--memory-block-size="+c.block)
			events += runEvents(t, w, 1<<20)
		}
		if want := c.perThread * c.threads; events != want {
			t.Errorf("total %s, block %s, %d threads: %d events, want %d", c.total, c.block, c.threads, events, want)
		}
		s := testStat()
		s.Events, s.TimeInterval = uint64(events), 1
		mib := float64(events) * float64(refSize(c.block)) / (1024 * 1024)
		if got, want := reportCumulative(t, tt, s), fmt.Sprintf("%4.2f MiB transferred (%4.2f MiB/sec)", mib, mib); !strings.Contains(got, want) {
			t.Errorf("total %s, block %s: report lacks %q:\n%s", c.total, c.block, want, got)
		}
	}
}

// A mutex worker's spin reads its count from the worker at every turn:
// the worker must own its cache lines (a size class of 128 bytes), or the
// other threads' writes beside it slow every turn.
func TestMutexWorkerOwnsItsLines(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(mutexWorker{}); n != 128 {
		t.Errorf("mutexWorker is %d bytes, want 128 (pad it)", n)
	}
}
