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
	// Written once, as the reference's memset: a mapping never written
	// reads as the kernel's one page of zeros, which the reads of a large
	// block would then find in the CPU's cache.
	clear(m)
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
	w := &memoryWorker{t: t, buf: t.global, work: memoryWork(t.oper, t.random)}
	if t.local {
		w.buf = t.locals[tid]
	}
	p := unsafe.Pointer(&w.buf[0])
	w.rows = unsafe.Slice((*[32]uint64)(p), len(w.buf)/32)
	w.tail = w.buf[len(w.rows)*32:]
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
	rows    [][32]uint64 // buf 32 words a step, for seqRead
	tail    []uint64     // the words of buf after the last whole row
	rng     *sbrand.Rand
	work    func(w *memoryWorker)
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
	w.work(w)
	return false, nil
}

// memoryWork picks an event's work once, by operation and access mode, as
// the reference picks its event function at start.
func memoryWork(oper int, random bool) func(w *memoryWorker) {
	switch {
	case !random && oper == memOpWrite:
		return seqWrite
	case !random && oper == memOpRead:
		return seqRead
	case !random:
		return seqNone
	case oper == memOpWrite:
		return rndWrite
	case oper == memOpRead:
		return rndRead
	default:
		return rndNone
	}
}

// The events' loops are shaped after the reference's compiled ones (gcc
// -O2 -funroll-loops) so that an event costs here what it costs there:
// the shape of a loop moves the score as much as its work does
// (docs/builtin-tests.md).

// seqWrite stores in each word the number of words from it to the end of
// the block, the reference's values, one word a step: unrolled, Go's loop
// takes fewer instructions a word than the reference's and runs faster;
// two words a step matched it on average but not from run to run.
func seqWrite(w *memoryWorker) {
	b := w.buf
	n := len(b)
	for i := range b {
		b[i] = uint64(n - i)
	}
}

// seqRead loads every word of the block. The reference's loads go
// nowhere (volatile reads, eight a step); here they feed four XORs, which
// keep them, 32 words a step: about as many instructions a word as the
// reference's loop (with eight a step, a third more).
func seqRead(w *memoryWorker) {
	rows := w.rows
	var x0, x1, x2, x3 uint64
	for i := range rows {
		r := &rows[i]
		x0 ^= r[0] ^ r[4] ^ r[8] ^ r[12] ^ r[16] ^ r[20] ^ r[24] ^ r[28]
		x1 ^= r[1] ^ r[5] ^ r[9] ^ r[13] ^ r[17] ^ r[21] ^ r[25] ^ r[29]
		x2 ^= r[2] ^ r[6] ^ r[10] ^ r[14] ^ r[18] ^ r[22] ^ r[26] ^ r[30]
		x3 ^= r[3] ^ r[7] ^ r[11] ^ r[15] ^ r[19] ^ r[23] ^ r[27] ^ r[31]
	}
	for _, v := range w.tail {
		x0 ^= v
	}
	w.sink ^= x0 ^ x1 ^ x2 ^ x3
}

// seqNone walks the block's words without touching them: the reference's
// loop holds nothing but a compiler barrier, and steps eight words at a
// time once unrolled.
func seqNone(w *memoryWorker) {
	n := len(w.buf)
	i := 0
	for ; i+8 <= n; i += 8 {
	}
	for ; i < n; i++ {
	}
	w.sink += uint64(i)
}

// The random events make one access per word of the block, each at an
// offset drawn as the reference draws it: the thread's uniform double in
// [0, 1) times the number of words, converted to an unsigned integer as
// the reference's size_t (a compare and a branch more than a signed
// conversion, which made these events faster than the reference's).

// rndWrite stores the byte offset of the access's turn in the block, the
// reference's value.
func rndWrite(w *memoryWorker) {
	b, r := w.buf, w.rng
	words := float64(len(b))
	for i := range b {
		b[uint64(r.Float64()*words)] = uint64(i * 8)
	}
}

func rndRead(w *memoryWorker) {
	b, r := w.buf, w.rng
	words := float64(len(b))
	var x uint64
	for range b {
		x ^= b[uint64(r.Float64()*words)]
	}
	w.sink ^= x
}

// rndNone draws the offsets and uses none. The reference's compiler keeps
// only what the draws do to the generator, its state in registers: so does
// Advance.
func rndNone(w *memoryWorker) {
	w.rng.Advance(len(w.buf))
}
