package builtin

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"syscall"
	"unsafe"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

func memoryOptions() []options.Option {
	return []options.Option{
		{Name: "memory-block-size", Desc: "size of memory block for test", Kind: options.Size, Default: "1K"},
		{Name: "memory-total-size", Desc: "total size of data to transfer", Kind: options.Size, Default: "100G"},
		{Name: "memory-scope", Desc: "memory access scope {global,local}", Kind: options.String, Default: "global"},
		{Name: "memory-hugetlb", Desc: "allocate memory from HugeTLB pool", Kind: options.Bool, Default: "off"},
		{Name: "memory-oper", Desc: "type of memory operations {read, write, none}", Kind: options.String, Default: "write"},
		{Name: "memory-access-mode", Desc: "memory access mode {seq,rnd}", Kind: options.String, Default: "seq"},
	}
}

const (
	memOpNone = iota
	memOpRead
	memOpWrite
)

// hugePageUnit is what a HugeTLB allocation is rounded up to: a multiple of
// both the 2 MiB x86 page and the 4 MiB unit the reference assumes.
const hugePageUnit = 4 << 20

// memoryTest reads or writes a block of memory per event, either one block
// shared by all threads (global scope) or one per thread (local).
type memoryTest struct {
	blockSize int64
	totalSize int64
	local     bool
	hugetlb   bool
	oper      int
	random    bool
	threads   int
	seed      int64

	global []uint64
	locals [][]uint64
	maps   [][]byte // mappings to release in Done
}

var (
	_ engine.Test   = (*memoryTest)(nil)
	_ engine.Worker = (*memoryWorker)(nil)
)

func newMemory(env *engine.Env) (engine.Test, error) {
	r := newOptReader(env, memoryOptions())
	t := &memoryTest{threads: max(env.Threads, 1), seed: env.RandSeed}

	t.blockSize = r.size("memory-block-size")
	if t.blockSize < 8 || t.blockSize&(t.blockSize-1) != 0 {
		return nil, fmt.Errorf("Invalid value for memory-block-size: %s", r.str("memory-block-size"))
	}
	t.totalSize = r.size("memory-total-size")
	switch s := r.str("memory-scope"); s {
	case "global":
	case "local":
		t.local = true
	default:
		return nil, fmt.Errorf("Invalid value for memory-scope: %s", s)
	}
	t.hugetlb = r.flag("memory-hugetlb")
	if t.hugetlb && mapHugeTLB == 0 {
		return nil, fmt.Errorf("memory-hugetlb: HugeTLB memory is not available on %s", runtime.GOOS)
	}
	switch s := r.str("memory-oper"); s {
	case "write":
		t.oper = memOpWrite
	case "read":
		t.oper = memOpRead
	case "none":
		t.oper = memOpNone
	default:
		return nil, fmt.Errorf("Invalid value for memory-oper: %s", s)
	}
	switch s := r.str("memory-access-mode"); s {
	case "seq":
	case "rnd":
		t.random = true
	default:
		return nil, fmt.Errorf("Invalid value for memory-access-mode: %s", s)
	}
	return t, nil
}

func (t *memoryTest) Name() string { return "memory" }

// Init allocates the buffers, zeroed and page-aligned like the reference's.
func (t *memoryTest) Init(ctx context.Context) error {
	if !t.local {
		b, err := t.alloc()
		if err != nil {
			return fmt.Errorf("%w\nFATAL: Failed to allocate buffer!", err)
		}
		t.global = b
		return nil
	}
	t.locals = make([][]uint64, t.threads)
	for i := range t.locals {
		b, err := t.alloc()
		if err != nil {
			return fmt.Errorf("%w\nFATAL: Failed to allocate buffer for thread #%d!", err, i)
		}
		t.locals[i] = b
	}
	return nil
}

func (t *memoryTest) alloc() ([]uint64, error) {
	size := int(t.blockSize)
	flags := syscall.MAP_PRIVATE | syscall.MAP_ANON
	if t.hugetlb {
		size = (size + hugePageUnit - 1) / hugePageUnit * hugePageUnit
		flags |= mapHugeTLB
	}
	m, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, flags)
	if err != nil {
		if t.hugetlb {
			return nil, fmt.Errorf("Failed to allocate %d bytes from HugeTLB memory.%s", size, errnoText(err))
		}
		return nil, fmt.Errorf("mmap() of %d bytes failed%s", size, errnoText(err))
	}
	t.maps = append(t.maps, m)
	return unsafe.Slice((*uint64)(unsafe.Pointer(&m[0])), t.blockSize/8), nil
}

func (t *memoryTest) Done(ctx context.Context) error {
	for _, m := range t.maps {
		_ = syscall.Munmap(m)
	}
	t.maps, t.global, t.locals = nil, nil, nil
	return nil
}

func (t *memoryTest) PrintMode(w io.Writer) {
	fmt.Fprintf(w, "Running memory speed test with the following options:\n")
	fmt.Fprintf(w, "  block size: %dKiB\n", t.blockSize/1024)
	fmt.Fprintf(w, "  total size: %dMiB\n", t.totalSize/1024/1024)
	fmt.Fprintf(w, "  operation: %s\n", [...]string{"none", "read", "write"}[t.oper])
	scope := "global"
	if t.local {
		scope = "local"
	}
	fmt.Fprintf(w, "  scope: %s\n", scope)
	fmt.Fprintf(w, "\n")
}

// EventsOverride reports that the test ignores --events: like the
// reference, the run ends when --memory-total-size has been transferred
// (or at --time).
func (t *memoryTest) EventsOverride() (uint64, bool) { return 0, true }

func (t *memoryTest) NewWorker(ctx context.Context, tid int, st *metrics.Handle) (engine.Worker, error) {
	w := &memoryWorker{t: t, buf: t.global}
	if t.local {
		w.buf = t.locals[tid]
	}
	if t.totalSize > 0 {
		w.limited = true
		w.left = t.totalSize / t.blockSize / int64(t.threads)
	}
	if t.random {
		w.rng = sbrand.NewThread(t.seed, tid)
	}
	return w, nil
}

const mib = 1024.0 * 1024.0

func (t *memoryTest) ReportIntermediate(w io.Writer, s *report.Stat) bool {
	report.WriteStamp(w, s)
	fmt.Fprintf(w, "%4.2f MiB/sec\n", float64(s.Events)*float64(t.blockSize)/mib/s.TimeInterval)
	return true
}

func (t *memoryTest) ReportCumulative(w io.Writer, s *report.Stat) bool {
	fmt.Fprintf(w, "Total operations: %d (%8.2f per second)\n\n", s.Events, float64(s.Events)/s.TimeInterval)
	if t.oper != memOpNone {
		mb := float64(s.Events) * float64(t.blockSize) / mib
		fmt.Fprintf(w, "%4.2f MiB transferred (%4.2f MiB/sec)\n\n", mb, mb/s.TimeInterval)
	}
	report.WriteGeneralStatistics(w, s)
	return true
}

type memoryWorker struct {
	baseWorker
	t       *memoryTest
	buf     []uint64
	rng     *sbrand.Rand
	limited bool
	left    int64
	sink    uint64 // keeps reads observable
}

func (w *memoryWorker) Event(ctx context.Context) (bool, error) {
	if w.limited {
		if w.left == 0 {
			return true, nil
		}
		w.left--
	}
	buf := w.buf
	n := len(buf)
	switch {
	case !w.t.random && w.t.oper == memOpWrite:
		for i := range buf {
			buf[i] = uint64(n - i)
		}
	case !w.t.random && w.t.oper == memOpRead:
		var acc uint64
		for _, v := range buf {
			acc ^= v
		}
		w.sink ^= acc
	case !w.t.random: // none: walk the block without touching it
		var acc uint64
		for i := range n {
			acc += uint64(i)
		}
		w.sink ^= acc
	case w.t.oper == memOpWrite:
		for i := range n {
			buf[int(w.rng.UniformDouble()*float64(n))] = uint64(i * 8)
		}
	case w.t.oper == memOpRead:
		var acc uint64
		for range n {
			acc ^= buf[int(w.rng.UniformDouble()*float64(n))]
		}
		w.sink ^= acc
	default: // random none: draw the offsets only
		var acc int
		for range n {
			acc += int(w.rng.UniformDouble() * float64(n))
		}
		w.sink ^= uint64(acc)
	}
	return false, nil
}
