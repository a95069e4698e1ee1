package builtin

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/options"
	"github.com/sysbench-go/sysbench-go/report"
	"github.com/sysbench-go/sysbench-go/sbrand"
)

func fileioOptions() []options.Option {
	return []options.Option{
		{Name: "file-num", Desc: "number of files to create", Kind: options.Int, Default: "128"},
		{Name: "file-block-size", Desc: "block size to use in all IO operations", Kind: options.Int, Default: "16384"},
		{Name: "file-total-size", Desc: "total size of files to create", Kind: options.Size, Default: "2G"},
		{Name: "file-test-mode", Desc: "test mode {seqwr, seqrewr, seqrd, rndrd, rndwr, rndrw}", Kind: options.String, NoDefault: true},
		{Name: "file-io-mode", Desc: "file operations mode {sync,async,mmap}", Kind: options.String, Default: "sync"},
		// The help text is the reference's; async I/O is done by goroutines
		// (see docs/builtin-tests.md), the backlog bounds them per thread.
		{Name: "file-async-backlog", Desc: "number of asynchronous operatons to queue per thread", Kind: options.Int, Default: "128"},
		{Name: "file-extra-flags", Desc: "list of additional flags to use to open files {sync,dsync,direct}", Kind: options.List, Default: ""},
		{Name: "file-fsync-freq", Desc: "do fsync() after this number of requests (0 - don't use fsync())", Kind: options.Int, Default: "100"},
		{Name: "file-fsync-all", Desc: "do fsync() after each write operation", Kind: options.Bool, Default: "off"},
		{Name: "file-fsync-end", Desc: "do fsync() at the end of test", Kind: options.Bool, Default: "on"},
		{Name: "file-fsync-mode", Desc: "which method to use for synchronization {fsync, fdatasync}", Kind: options.String, Default: "fsync"},
		{Name: "file-merged-requests", Desc: "merge at most this number of IO requests if possible (0 - don't merge)", Kind: options.Int, Default: "0"},
		{Name: "file-rw-ratio", Desc: "reads/writes ratio for combined test", Kind: options.Float, Default: "1.5"},
	}
}

// fileMode is --file-test-mode.
type fileMode int

const (
	modeSeqWr fileMode = iota
	modeSeqRewr
	modeSeqRd
	modeRndRd
	modeRndWr
	modeRndRW
)

var fileModes = map[string]fileMode{
	"seqwr": modeSeqWr, "seqrewr": modeSeqRewr, "seqrd": modeSeqRd,
	"rndrd": modeRndRd, "rndwr": modeRndWr, "rndrw": modeRndRW,
}

func (m fileMode) String() string {
	return [...]string{"sequential write (creation)", "sequential rewrite", "sequential read",
		"random read", "random write", "random r/w"}[m]
}

func (m fileMode) sequential() bool { return m <= modeSeqRd }
func (m fileMode) readOnly() bool   { return m == modeSeqRd || m == modeRndRd }

// ioMode is --file-io-mode.
type ioMode int

const (
	ioSync ioMode = iota
	ioAsync
	ioMmap
)

func (m ioMode) String() string {
	return [...]string{"synchronous", "asynchronous", "fast mmaped"}[m]
}

type fileOp int

const (
	opRead fileOp = iota
	opWrite
	opFsync
)

// fileReq is one I/O request; key is the block's offset across all files
// (for the --validate in-flight check).
type fileReq struct {
	op   fileOp
	file int
	pos  int64
	size int64
	key  int64
}

// fileioConfig is the parsed option set.
type fileioConfig struct {
	numFiles    int
	totalSize   int64
	fileSize    int64
	blockSize   int64
	requestSize int64 // blockSize × --file-merged-requests
	merged      int64
	modeName    string
	mode        fileMode
	io          ioMode
	backlog     int
	flagSync    bool
	flagDsync   bool
	flagDirect  bool
	fsyncFreq   int64
	fsyncAll    bool
	fsyncEnd    bool
	fdatasync   bool
	rwRatio     float64
	validate    bool
	events      int64
	threads     int
	seed        int64
}

// fileTest is the fileio test. Request generation is serialised by one
// mutex, as in the reference, so sequential modes walk the files in order
// across all threads; the I/O itself runs unlocked.
type fileTest struct {
	cfg fileioConfig
	dir string // where test_file.N live; "" is the current directory

	fds  []int
	maps [][]byte

	mu        sync.Mutex
	cond      *sync.Cond // --validate: a block became free
	position  int64
	current   int
	fsynced   int
	dirty     bool
	performed int64
	inflight  map[int64]int // --validate: blocks being read or written

	// Operation counters since the last cumulative report.
	reads, writes, fsyncs   atomic.Uint64
	bytesRead, bytesWritten atomic.Uint64

	repMu                           sync.Mutex
	lastRead, lastWritten, lastSync uint64
}

var (
	_ engine.Test      = (*fileTest)(nil)
	_ engine.Commander = (*fileTest)(nil)
	_ engine.Preparer  = (*fileTest)(nil)
	_ engine.Worker    = (*fileWorker)(nil)
)

func newFileio(env *engine.Env) (engine.Test, error) { return newFileioIn(env, "") }

// newFileioIn creates the test with its files in dir.
func newFileioIn(env *engine.Env, dir string) (*fileTest, error) {
	r := newOptReader(env, fileioOptions())
	c := fileioConfig{threads: max(env.Threads, 1), validate: env.Validate, seed: env.RandSeed}

	n, err := r.int("file-num")
	if err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("Invalid value for file-num: %d", n)
	}
	c.numFiles = int(n)
	c.totalSize = r.size("file-total-size")
	if c.totalSize <= 0 {
		return nil, fmt.Errorf("Invalid value for file-total-size: %d", c.totalSize)
	}
	c.fileSize = c.totalSize / int64(c.numFiles)
	c.modeName, _ = r.raw("file-test-mode")

	switch s := r.str("file-io-mode"); s {
	case "", "sync":
		c.io = ioSync
	case "async":
		c.io = ioAsync
	case "mmap":
		c.io = ioMmap
	default:
		return nil, fmt.Errorf("unknown I/O mode: %s", s)
	}
	if c.merged, err = r.int("file-merged-requests"); err != nil {
		return nil, err
	}
	if c.merged < 0 {
		return nil, fmt.Errorf("Invalid value for file-merged-requests: %d.", c.merged)
	}
	c.blockSize = r.size("file-block-size")
	if c.blockSize <= 0 || c.blockSize > 1<<31-1 {
		return nil, fmt.Errorf("Invalid value for file-block-size: %d.", int32(c.blockSize))
	}
	c.requestSize = c.blockSize
	if c.merged > 0 {
		c.requestSize = c.blockSize * c.merged
	}
	for _, f := range r.list("file-extra-flags") {
		switch f {
		case "sync":
			c.flagSync = true
		case "dsync":
			c.flagDsync = true
		case "direct":
			if oDirect == 0 {
				return nil, fmt.Errorf("file-extra-flags: direct (O_DIRECT) is not available on %s", runtime.GOOS)
			}
			c.flagDirect = true
		default:
			return nil, fmt.Errorf("Invalid value for file-extra-flags: %s", r.str("file-extra-flags"))
		}
	}
	if c.fsyncFreq, err = r.int("file-fsync-freq"); err != nil {
		return nil, err
	}
	if c.fsyncFreq < 0 {
		return nil, fmt.Errorf("Invalid value for file-fsync-freq: %d.", c.fsyncFreq)
	}
	c.fsyncEnd = r.flag("file-fsync-end")
	c.fsyncAll = r.flag("file-fsync-all")
	if c.fsyncAll { // overrides the other two, as in the reference
		c.fsyncEnd = false
		c.fsyncFreq = 0
	}
	switch s := r.str("file-fsync-mode"); s {
	case "fsync":
	case "fdatasync":
		c.fdatasync = true
	default:
		return nil, fmt.Errorf("Invalid fsync mode: %s.", s)
	}
	c.rwRatio = r.float("file-rw-ratio")
	if c.rwRatio < 0 {
		return nil, fmt.Errorf("Invalid value for --file-rw-ratio: %f.", c.rwRatio)
	}
	if c.io == ioAsync {
		b, err := r.int("file-async-backlog")
		if err != nil {
			return nil, err
		}
		if b <= 0 {
			return nil, fmt.Errorf("Invalid value of file-async-backlog: %d", b)
		}
		c.backlog = int(b)
	}
	// "Number of IO requests" is --events (or its old name).
	ev := refSize(r.str("events"))
	if ev == 0 {
		ev = refSize(r.str("max-requests"))
	}
	c.events = ev

	t := &fileTest{cfg: c, dir: dir}
	t.cond = sync.NewCond(&t.mu)
	return t, nil
}

func (t *fileTest) Name() string { return "fileio" }

func (t *fileTest) fileName(i int) string { return "test_file." + strconv.Itoa(i) }

func (t *fileTest) filePath(i int) string { return filepath.Join(t.dir, t.fileName(i)) }

func (c *fileioConfig) openFlags() int {
	f := 0
	if c.flagSync {
		f |= syscall.O_SYNC
	}
	if c.flagDsync {
		f |= syscall.O_DSYNC
	}
	if c.flagDirect {
		f |= oDirect
	}
	return f
}

func (c *fileioConfig) extraFlagsLine() string {
	s := "Extra file open flags: "
	if !c.flagSync && !c.flagDsync && !c.flagDirect {
		s += "(none)"
	}
	if c.flagSync {
		s += "sync "
	}
	if c.flagDsync {
		s += "dsync "
	}
	if c.flagDirect {
		s += "directio"
	}
	return s + "\n"
}

// Command implements prepare and cleanup.
func (t *fileTest) Command(ctx context.Context, name string, out io.Writer) error {
	switch name {
	case "prepare":
		return t.prepare(ctx, out)
	case "cleanup":
		return t.cleanup(out)
	}
	return engine.ErrUnknownCommand
}

// prepare creates (or extends) the test files with --file-block-size
// writes and syncs each one, whatever --file-test-mode says, as the
// reference does. With --validate every block carries the check pattern.
func (t *fileTest) prepare(ctx context.Context, out io.Writer) error {
	c := &t.cfg
	fmt.Fprintf(out, "%d files, %dKb each, %dMb total\n", c.numFiles, c.fileSize/1024,
		c.fileSize*int64(c.numFiles)/(1024*1024))
	fmt.Fprintf(out, "Creating files for the test...\n")
	fmt.Fprint(out, c.extraFlagsLine())

	buf := alignedBuffer(int(c.blockSize))
	rng := sbrand.NewThread(c.seed, 0)
	var written int64
	start := time.Now()
	for i := 0; i < c.numFiles; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		fd, err := syscall.Open(t.filePath(i), syscall.O_CREAT|syscall.O_WRONLY|syscall.O_CLOEXEC|c.openFlags(), 0o600)
		if err != nil {
			return fmt.Errorf("Can't open file%s", errnoText(err))
		}
		offset, err := syscall.Seek(fd, 0, io.SeekEnd)
		if err != nil {
			syscall.Close(fd)
			return fmt.Errorf("Can't open file%s", errnoText(err))
		}
		switch {
		case offset >= c.fileSize:
			fmt.Fprintf(out, "Reusing existing file %s\n", t.fileName(i))
		case offset > 0:
			fmt.Fprintf(out, "Extending existing file %s\n", t.fileName(i))
		default:
			fmt.Fprintf(out, "Creating file %s\n", t.fileName(i))
		}
		for ; offset < c.fileSize; offset += c.blockSize {
			if c.validate {
				fillBlock(buf[:min(c.blockSize, c.fileSize-offset)], offset, rng)
			}
			n, err := syscall.Write(fd, buf)
			if err == nil && n != len(buf) {
				err = io.ErrShortWrite
			}
			if err != nil {
				syscall.Close(fd)
				return fmt.Errorf("Failed to write file!%s", errnoText(err))
			}
			written += c.blockSize
		}
		// Sync so that flushing the page cache does not distort the run.
		_ = syscall.Fsync(fd)
		syscall.Close(fd)
	}
	secs := time.Since(start).Seconds()
	if written > 0 {
		fmt.Fprintf(out, "%d bytes written in %.2f seconds (%.2f MiB/sec).\n",
			written, secs, float64(written)/mib/secs)
	} else {
		fmt.Fprintf(out, "No bytes written.\n")
	}
	return nil
}

func (t *fileTest) cleanup(out io.Writer) error {
	fmt.Fprintf(out, "Removing test files...\n")
	for i := 0; i < t.cfg.numFiles; i++ {
		_ = os.Remove(t.filePath(i))
	}
	return nil
}

// Init checks --file-test-mode (needed by "run" only). As in the
// reference, a bad mode fails before the run-mode header.
func (t *fileTest) Init(ctx context.Context) error {
	return t.parseMode()
}

// Prepare opens the files: seqwr recreates them empty, the other modes
// need them prepared and large enough. The engine calls it after the
// run-mode lines, so "Cannot open file" follows them as in the reference.
// On failure the engine does not call Done, so the files are closed here.
func (t *fileTest) Prepare(ctx context.Context) error {
	if err := t.openFiles(); err != nil {
		t.closeFiles()
		return err
	}
	return nil
}

// parseMode checks --file-test-mode; the reference requires it for "run"
// only, so prepare and cleanup work without it.
func (t *fileTest) parseMode() error {
	c := &t.cfg
	if c.modeName == "" {
		return fmt.Errorf("Missing required argument: --file-test-mode\n\nfileio options:\n%s",
			options.FormatHelp(fileioOptions()))
	}
	m, ok := fileModes[c.modeName]
	if !ok {
		return fmt.Errorf("Invalid IO operations mode: %s.", c.modeName)
	}
	c.mode = m
	if c.validate && !c.mode.sequential() {
		t.inflight = map[int64]int{}
	}
	return nil
}

func (t *fileTest) openFiles() error {
	c := &t.cfg
	t.fds = make([]int, 0, c.numFiles)
	for i := 0; i < c.numFiles; i++ {
		path, name := t.filePath(i), t.fileName(i)
		if c.mode == modeSeqWr {
			_ = os.Remove(path)
			fd, err := syscall.Open(path, syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
			if err != nil {
				return fmt.Errorf("Cannot create file '%s'%s", name, errnoText(err))
			}
			syscall.Close(fd)
		}
		fd, err := syscall.Open(path, syscall.O_RDWR|syscall.O_CLOEXEC|c.openFlags(), 0o600)
		if err != nil {
			return fmt.Errorf("Cannot open file '%s'%s\nWARNING: Did you forget to run the prepare step?",
				name, errnoText(err))
		}
		t.fds = append(t.fds, fd)
		if c.mode == modeSeqWr {
			continue
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return fmt.Errorf("fstat() failed on file '%s'%s", name, errnoText(err))
		}
		if st.Size < c.fileSize {
			return fmt.Errorf("Size of file '%s' is %sB, but at least %sB is expected.\n"+
				"WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?",
				name, sizeString(float64(st.Size)), sizeString(float64(c.fileSize)))
		}
	}
	if c.io != ioMmap {
		return nil
	}
	for i, fd := range t.fds {
		if c.mode == modeSeqWr {
			if err := syscall.Ftruncate(fd, c.fileSize); err != nil {
				return fmt.Errorf("ftruncate() failed on file %d%s", i, errnoText(err))
			}
		}
		m, err := syscall.Mmap(fd, 0, int(c.fileSize), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
		if err != nil {
			return fmt.Errorf("mmap() failed on file %d%s", i, errnoText(err))
		}
		t.maps = append(t.maps, m)
	}
	return nil
}

func (t *fileTest) closeFiles() {
	for _, m := range t.maps {
		_ = syscall.Munmap(m)
	}
	for _, fd := range t.fds {
		syscall.Close(fd)
	}
	t.maps, t.fds = nil, nil
}

// Done closes the files.
func (t *fileTest) Done(ctx context.Context) error {
	t.closeFiles()
	return nil
}

func (t *fileTest) PrintMode(w io.Writer) {
	c := &t.cfg
	fmt.Fprint(w, c.extraFlagsLine())
	fmt.Fprintf(w, "%d files, %sB each\n", c.numFiles, sizeString(float64(c.fileSize)))
	fmt.Fprintf(w, "%sB total file size\n", sizeString(float64(c.fileSize*int64(c.numFiles))))
	fmt.Fprintf(w, "Block size %sB\n", sizeString(float64(c.blockSize)))
	if c.merged > 0 {
		fmt.Fprintf(w, "Merging requests up to %sB for sequential IO.\n", sizeString(float64(c.requestSize)))
	}
	if !c.mode.sequential() {
		fmt.Fprintf(w, "Number of IO requests: %d\n", c.events)
		fmt.Fprintf(w, "Read/Write ratio for combined random IO test: %2.2f\n", c.rwRatio)
	}
	if c.fsyncFreq > 0 {
		fmt.Fprintf(w, "Periodic FSYNC enabled, calling fsync() each %d requests.\n", c.fsyncFreq)
	}
	if c.fsyncEnd {
		fmt.Fprintf(w, "Calling fsync() at the end of test, Enabled.\n")
	}
	if c.fsyncAll {
		fmt.Fprintf(w, "Calling fsync() after each write operation.\n")
	}
	fmt.Fprintf(w, "Using %s I/O mode\n", c.io)
	if c.validate {
		fmt.Fprintf(w, "Using checksums validation.\n")
	}
	fmt.Fprintf(w, "Doing %s test\n", c.mode)
}

func (t *fileTest) ReportIntermediate(w io.Writer, s *report.Stat) bool {
	t.repMu.Lock()
	r, wr, f := t.bytesRead.Load(), t.bytesWritten.Load(), t.fsyncs.Load()
	dr, dw, df := r-t.lastRead, wr-t.lastWritten, f-t.lastSync
	t.lastRead, t.lastWritten, t.lastSync = r, wr, f
	t.repMu.Unlock()

	sec := s.TimeInterval
	report.WriteStamp(w, s)
	fmt.Fprintf(w, "reads: %4.2f MiB/s writes: %4.2f MiB/s fsyncs: %4.2f/s latency (ms,%s%%): %4.3f\n",
		float64(dr)/mib/sec, float64(dw)/mib/sec, float64(df)/sec,
		strconv.FormatFloat(s.Percentile, 'f', -1, 64), s.LatencyPct*1000)
	return true
}

func (t *fileTest) ReportCumulative(w io.Writer, s *report.Stat) bool {
	t.repMu.Lock()
	reads, writes, fsyncs := t.reads.Swap(0), t.writes.Swap(0), t.fsyncs.Swap(0)
	br, bw := t.bytesRead.Swap(0), t.bytesWritten.Swap(0)
	t.lastRead, t.lastWritten, t.lastSync = 0, 0, 0
	t.repMu.Unlock()

	sec := s.TimeInterval
	fmt.Fprintf(w, "\nFile operations:\n")
	fmt.Fprintf(w, "    reads/s:                      %4.2f\n", float64(reads)/sec)
	fmt.Fprintf(w, "    writes/s:                     %4.2f\n", float64(writes)/sec)
	fmt.Fprintf(w, "    fsyncs/s:                     %4.2f\n", float64(fsyncs)/sec)
	fmt.Fprintf(w, "\nThroughput:\n")
	fmt.Fprintf(w, "    read, MiB/s:                  %4.2f\n", float64(br)/mib/sec)
	fmt.Fprintf(w, "    written, MiB/s:               %4.2f\n", float64(bw)/mib/sec)
	report.WriteGeneralStatistics(w, s)
	return true
}

// next returns the next request: the sequential walk shared by all
// threads, or a random block drawn with the thread's generator.
func (t *fileTest) next(rng *sbrand.Rand) fileReq {
	c := &t.cfg
	t.mu.Lock()
	defer t.mu.Unlock()

	op := opRead
	switch c.mode {
	case modeSeqWr, modeSeqRewr, modeRndWr:
		op = opWrite
	case modeRndRW:
		// Steer towards the ratio of completed reads to writes.
		if float64(t.reads.Load()+1)/float64(t.writes.Load()+1) >= c.rwRatio {
			op = opWrite
		}
	}
	// Periodic fsync: one file per request until all are synced.
	if c.fsyncFreq != 0 && t.dirty && (op == opWrite || !c.mode.sequential()) &&
		t.performed%c.fsyncFreq == 0 {
		r := fileReq{op: opFsync, file: t.fsynced}
		if t.fsynced++; t.fsynced == c.numFiles {
			t.fsynced, t.dirty = 0, false
		}
		return r
	}
	t.performed++
	if op == opWrite {
		t.dirty = true
	}
	if c.mode.sequential() {
		if t.current == c.numFiles {
			t.position, t.current = 0, 0
		}
		r := fileReq{op: op, file: t.current, pos: t.position, size: min(c.requestSize, c.fileSize-t.position)}
		if t.position += r.size; t.position == c.fileSize {
			t.current++
			t.position = 0
		}
		return r
	}

	// The whole span of all files, block-aligned; the reference draws over
	// --file-total-size, which can fall past the last file when it is not
	// a multiple of --file-num.
	span := c.fileSize * int64(c.numFiles)
	for tries := 0; ; tries++ {
		p := int64(rng.UniformDouble() * float64(span))
		p -= p % c.blockSize
		r := fileReq{op: op, file: int(p / c.fileSize), pos: p % c.fileSize, key: p}
		r.size = min(c.blockSize, c.fileSize-r.pos)
		if t.inflight == nil {
			return r
		}
		// --validate: never touch a block another request is using.
		if t.inflight[p] == 0 {
			t.inflight[p]++
			return r
		}
		if tries >= 16 {
			t.cond.Wait()
		}
	}
}

// release marks a --validate request's block free.
func (t *fileTest) release(r fileReq) {
	if t.inflight == nil || r.op == opFsync {
		return
	}
	t.mu.Lock()
	if t.inflight[r.key]--; t.inflight[r.key] <= 0 {
		delete(t.inflight, r.key)
	}
	t.cond.Broadcast()
	t.mu.Unlock()
}

func (t *fileTest) NewWorker(ctx context.Context, tid int, st *metrics.Handle) (engine.Worker, error) {
	w := &fileWorker{t: t, st: st, rng: sbrand.NewThread(t.cfg.seed, tid)}
	if t.cfg.io == ioAsync {
		w.slots = make(chan []byte, t.cfg.backlog)
		for range t.cfg.backlog {
			w.slots <- alignedBuffer(int(t.cfg.requestSize))
		}
	} else {
		w.buf = alignedBuffer(int(t.cfg.requestSize))
	}
	return w, nil
}

// fileWorker executes requests. In async mode each read or write runs on
// its own goroutine with its own buffer, at most --file-async-backlog per
// worker; the event is the submission, and the operation is counted when
// it completes, as with the reference's Linux AIO.
type fileWorker struct {
	t   *fileTest
	st  *metrics.Handle
	rng *sbrand.Rand
	buf []byte

	slots   chan []byte
	pending sync.WaitGroup
	errMu   sync.Mutex
	err     error // first async failure
}

func (w *fileWorker) Init(ctx context.Context) error { return nil }

// count counts an operation; async requests run on goroutines of their own.
func (w *fileWorker) count(c metrics.Counter) {
	if w.slots != nil {
		w.st.IncShared(c)
	} else {
		w.st.Inc(c)
	}
}

func (w *fileWorker) Event(ctx context.Context) (bool, error) {
	if err := w.asyncErr(); err != nil {
		return false, err
	}
	r := w.t.next(w.rng)
	if r.op == opFsync {
		if w.t.cfg.fsyncAll { // every write is synced already
			return false, nil
		}
		return false, w.fsync(r.file)
	}
	if w.slots != nil {
		return false, w.submit(ctx, r)
	}
	buf := w.buf[:r.size]
	w.fill(r, buf)
	err := w.do(r, buf)
	w.t.release(r)
	return false, err
}

// submit starts an async request once a backlog slot is free.
func (w *fileWorker) submit(ctx context.Context, r fileReq) error {
	var buf []byte
	select {
	case buf = <-w.slots:
	case <-ctx.Done():
		w.t.release(r)
		return ctx.Err()
	}
	w.fill(r, buf[:r.size]) // here: the generator belongs to this goroutine
	w.pending.Add(1)
	go func() {
		defer w.pending.Done()
		err := w.do(r, buf[:r.size])
		w.t.release(r)
		w.slots <- buf
		if err != nil {
			w.errMu.Lock()
			if w.err == nil {
				w.err = err
			}
			w.errMu.Unlock()
		}
	}()
	return nil
}

func (w *fileWorker) asyncErr() error {
	if w.slots == nil {
		return nil
	}
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// fill writes the --validate pattern into a write request's buffer.
func (w *fileWorker) fill(r fileReq, buf []byte) {
	if r.op == opWrite && w.t.cfg.validate {
		fillBlocks(buf, r.pos, w.t.cfg.blockSize, w.rng)
	}
}

// do performs one read or write and counts it.
func (w *fileWorker) do(r fileReq, buf []byte) error {
	t := w.t
	c := &t.cfg
	switch r.op {
	case opWrite:
		if err := t.pwrite(r.file, buf, r.pos); err != nil {
			return fmt.Errorf("Failed to write file! file: %d pos: %d%s", t.fds[r.file], r.pos, errnoText(err))
		}
		if c.fsyncAll {
			if err := w.fsync(r.file); err != nil {
				return err
			}
		}
		t.writes.Add(1)
		t.bytesWritten.Add(uint64(r.size))
		w.count(metrics.CntWrite)
	case opRead:
		if err := t.pread(r.file, buf, r.pos); err != nil {
			return fmt.Errorf("Failed to read file! file: %d pos: %d%s", t.fds[r.file], r.pos, errnoText(err))
		}
		if c.validate {
			if err := checkBlocks(buf, r.pos, c.blockSize); err != nil {
				return fmt.Errorf("%w\nFATAL: Validation failed on file %d, block offset %d, exiting...",
					err, r.file, r.pos)
			}
		}
		t.reads.Add(1)
		t.bytesRead.Add(uint64(r.size))
		w.count(metrics.CntRead)
	}
	return nil
}

func (t *fileTest) pread(file int, buf []byte, pos int64) error {
	if t.cfg.io == ioMmap {
		copy(buf, t.maps[file][pos:])
		return nil
	}
	n, err := syscall.Pread(t.fds[file], buf, pos)
	if err == nil && n != len(buf) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

func (t *fileTest) pwrite(file int, buf []byte, pos int64) error {
	if t.cfg.io == ioMmap {
		copy(t.maps[file][pos:], buf)
		return nil
	}
	n, err := syscall.Pwrite(t.fds[file], buf, pos)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	return err
}

// fsync syncs one file: msync in mmap mode, else fsync or fdatasync.
func (w *fileWorker) fsync(file int) error {
	t := w.t
	var err error
	switch {
	case t.cfg.io == ioMmap:
		err = msync(t.maps[file])
	case t.cfg.fdatasync:
		err = fdatasync(t.fds[file])
	default:
		err = syscall.Fsync(t.fds[file])
	}
	if err != nil {
		return fmt.Errorf("Failed to fsync file! file: %d%s", t.fds[file], errnoText(err))
	}
	t.fsyncs.Add(1)
	w.count(metrics.CntOther)
	return nil
}

func msync(m []byte) error {
	if len(m) == 0 {
		return nil
	}
	_, _, e := syscall.Syscall(syscall.SYS_MSYNC, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)),
		syscall.MS_SYNC|syscall.MS_INVALIDATE)
	if e != 0 {
		return e
	}
	return nil
}

// Done waits for the worker's async requests, then syncs every file when
// --file-fsync-end is on and the mode writes.
func (w *fileWorker) Done(ctx context.Context) error {
	w.pending.Wait()
	if err := w.asyncErr(); err != nil {
		return err
	}
	c := &w.t.cfg
	if c.fsyncEnd && !c.mode.readOnly() {
		for i := range w.t.fds {
			if err := w.fsync(i); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *fileWorker) Close() { w.pending.Wait() }

// alignedBuffer returns n bytes aligned on a page, as O_DIRECT requires.
func alignedBuffer(n int) []byte {
	align := os.Getpagesize()
	b := make([]byte, n+align)
	off := int(-uintptr(unsafe.Pointer(&b[0])) & uintptr(align-1))
	return b[off : off+n : off+n]
}
