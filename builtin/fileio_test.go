package builtin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// Small files so the tests stay quick: 4 files of 64 KiB, 4 KiB blocks.
var smallFiles = []string{"--file-num=4", "--file-total-size=256K", "--file-block-size=4096"}

func newSmallFileio(t *testing.T, dir string, validate bool, opts ...string) *fileTest {
	t.Helper()
	env := testEnv(1, append(append([]string{}, smallFiles...), opts...)...)
	env.Validate = validate
	env.RandSeed = 7
	ft, err := newFileioIn(env, dir)
	if err != nil {
		t.Fatal(err)
	}
	return ft
}

func fileCommand(t *testing.T, ft *fileTest, name string) string {
	t.Helper()
	var b bytes.Buffer
	if err := ft.Command(context.Background(), name, &b); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.String()
}

func prepareSmall(t *testing.T, validate bool, opts ...string) string {
	t.Helper()
	dir := t.TempDir()
	fileCommand(t, newSmallFileio(t, dir, validate, opts...), "prepare")
	return dir
}

var prepareSummaryRE = regexp.MustCompile(`^262144 bytes written in [0-9]+\.[0-9]{2} seconds \([0-9]+\.[0-9]{2} MiB/sec\)\.$`)

func TestFileioPrepareAndCleanup(t *testing.T) {
	dir := t.TempDir()
	ft := newSmallFileio(t, dir, true)
	out := fileCommand(t, ft, "prepare")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	want := []string{
		"4 files, 64Kb each, 0Mb total",
		"Creating files for the test...",
		"Extra file open flags: (none)",
		"Creating file test_file.0",
		"Creating file test_file.1",
		"Creating file test_file.2",
		"Creating file test_file.3",
	}
	if len(lines) != len(want)+1 || strings.Join(lines[:len(want)], "\n") != strings.Join(want, "\n") ||
		!prepareSummaryRE.MatchString(lines[len(want)]) {
		t.Fatalf("prepare output:\n%s", out)
	}
	// Every block carries the check pattern for its offset.
	for i := 0; i < 4; i++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("test_file.%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 64<<10 {
			t.Fatalf("test_file.%d is %d bytes, want 65536", i, len(b))
		}
		if err := checkBlocks(b, 0, 4096); err != nil {
			t.Fatalf("test_file.%d: %v", i, err)
		}
		if bytes.Equal(b[:100], make([]byte, 100)) {
			t.Fatalf("test_file.%d: no random data", i)
		}
	}

	// A second prepare reuses the files; a larger one extends them.
	if out := fileCommand(t, ft, "prepare"); !strings.Contains(out, "Reusing existing file test_file.3\nNo bytes written.\n") {
		t.Errorf("second prepare:\n%s", out)
	}
	big := newSmallFileio(t, dir, false, "--file-total-size=512K")
	if out := fileCommand(t, big, "prepare"); !strings.Contains(out, "Extending existing file test_file.0\n") ||
		!strings.Contains(out, "262144 bytes written in") {
		t.Errorf("extending prepare:\n%s", out)
	}

	if out := fileCommand(t, ft, "cleanup"); out != "Removing test files...\n" {
		t.Errorf("cleanup output %q", out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "test_file.*")); len(left) != 0 {
		t.Errorf("files left after cleanup: %v", left)
	}
	if err := ft.Command(context.Background(), "warmup", &bytes.Buffer{}); err != engine.ErrUnknownCommand {
		t.Errorf("unknown command: %v", err)
	}
}

// Without --validate prepared files are zeros, as the reference's.
func TestFileioPrepareZeros(t *testing.T) {
	dir := prepareSmall(t, false)
	b, _ := os.ReadFile(filepath.Join(dir, "test_file.2"))
	if len(b) != 64<<10 || !bytes.Equal(b, make([]byte, len(b))) {
		t.Errorf("test_file.2: %d bytes, not all zero", len(b))
	}
}

func TestFileioMissingMode(t *testing.T) {
	ft := newSmallFileio(t, t.TempDir(), false)
	err := ft.Init(context.Background())
	if err == nil {
		t.Fatal("Init without --file-test-mode succeeded")
	}
	got := "FATAL: " + err.Error() + "\n"
	if want := readFile(t, filepath.Join("testdata", "reference", "fileio.missing-mode.txt")); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	ft = newSmallFileio(t, t.TempDir(), false, "--file-test-mode=foo")
	if err := ft.Init(context.Background()); err == nil || err.Error() != "Invalid IO operations mode: foo." {
		t.Errorf("bad mode: %v", err)
	}
}

// initAndPrepare does what the engine does before starting the workers.
func initAndPrepare(ctx context.Context, ft *fileTest) error {
	if err := ft.Init(ctx); err != nil {
		return err
	}
	return ft.Prepare(ctx)
}

func TestFileioNotPrepared(t *testing.T) {
	ctx := context.Background()
	ft := newSmallFileio(t, t.TempDir(), false, "--file-test-mode=rndrd")
	// Init only checks the mode; the files are opened by Prepare.
	if err := ft.Init(ctx); err != nil {
		t.Fatalf("Init: %v", err)
	}
	want := "Cannot open file 'test_file.0' errno = 2 (No such file or directory)\n" +
		"WARNING: Did you forget to run the prepare step?"
	if err := ft.Prepare(ctx); err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	dir := prepareSmall(t, false)
	ft = newSmallFileio(t, dir, false, "--file-test-mode=seqrd", "--file-total-size=512K")
	want = "Size of file 'test_file.0' is 64KiB, but at least 128KiB is expected.\n" +
		"WARNING: Did you run 'prepare' with different --file-total-size or --file-num values?"
	if err := initAndPrepare(ctx, ft); err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	if ft.fds != nil || ft.maps != nil {
		t.Errorf("a failed Prepare left files open: %v", ft.fds)
	}
}

// Through the engine, "Cannot open file" follows the run-mode lines, byte
// for byte as the reference's output (main adds the "FATAL: " prefix).
func TestFileioNotPreparedRun(t *testing.T) {
	env := testEnv(1, "--file-num=4", "--file-total-size=256K", "--file-test-mode=rndrd")
	ft, err := newFileioIn(env, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Threads: 1, Time: 10 * time.Second, ForcedShutdown: -1,
		Percentiles: []float64{95}}
	var out bytes.Buffer
	err = runToEnd(context.Background(), ft, cfg, logging.New(&out, logging.Notice))
	if err == nil {
		t.Fatalf("run without prepared files succeeded:\n%s", out.String())
	}
	got := out.String() + "FATAL: " + err.Error() + "\n"
	if want := readFile(t, filepath.Join("testdata", "reference", "run.fileio-not-prepared.txt")); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The run-mode lines for the reference's recorded rndrw run.
func TestFileioPrintMode(t *testing.T) {
	env := testEnv(1, "--file-total-size=64M", "--file-test-mode=rndrw")
	ft, err := newFileioIn(env, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := ft.parseMode(); err != nil {
		t.Fatal(err)
	}
	ref := readFile(t, filepath.Join("testdata", "reference", "run.fileio.txt"))
	start := strings.Index(ref, "Extra file open flags")
	end := strings.Index(ref, "Initializing worker threads")
	if got := printMode(ft); got != ref[start:end] {
		t.Errorf("got\n%s\nwant\n%s", got, ref[start:end])
	}

	env = testEnv(1, "--file-test-mode=seqwr", "--file-extra-flags=sync,dsync,direct",
		"--file-merged-requests=4", "--file-fsync-all", "--file-io-mode=mmap", "--file-block-size=4K")
	env.Validate = true
	ft, _ = newFileioIn(env, "")
	_ = ft.parseMode()
	golden(t, "fileio.printmode-seqwr", printMode(ft))
}

func TestFileioReports(t *testing.T) {
	ft := newSmallFileio(t, "", false)
	ft.reads.Store(3000)
	ft.writes.Store(2000)
	ft.fsyncs.Store(100)
	ft.bytesRead.Store(3000 * 16384)
	ft.bytesWritten.Store(2000 * 16384)

	var b bytes.Buffer
	s := &report.Stat{TimeTotal: 1, TimeInterval: 1, Percentile: 95, LatencyPct: 0.000123}
	ft.ReportIntermediate(&b, s)
	if want := "[ 1s ] reads: 46.88 MiB/s writes: 31.25 MiB/s fsyncs: 100.00/s latency (ms,95%): 0.123\n"; b.String() != want {
		t.Errorf("intermediate %q, want %q", b.String(), want)
	}
	// The next interval counts from the last report.
	ft.bytesRead.Add(1 << 20)
	b.Reset()
	s.TimeTotal = 2
	ft.ReportIntermediate(&b, s)
	if want := "[ 2s ] reads: 1.00 MiB/s writes: 0.00 MiB/s fsyncs: 0.00/s latency (ms,95%): 0.123\n"; b.String() != want {
		t.Errorf("intermediate %q, want %q", b.String(), want)
	}
	ft.bytesRead.Store(3000 * 16384)
	golden(t, "fileio.report", reportCumulative(t, ft, testStat()))
	// The cumulative report starts the counters afresh (checkpoints).
	if ft.reads.Load() != 0 || ft.bytesWritten.Load() != 0 {
		t.Error("counters not reset by the cumulative report")
	}
}

// runFileio runs n events of a mode on one worker and returns the test.
func runFileio(t *testing.T, dir string, validate bool, n int, opts ...string) *fileTest {
	t.Helper()
	ft := newSmallFileio(t, dir, validate, opts...)
	ctx := context.Background()
	if err := initAndPrepare(ctx, ft); err != nil {
		t.Fatalf("Init/Prepare: %v", err)
	}
	defer ft.Done(ctx)
	w, err := ft.NewWorker(ctx, 0, metrics.NewHandle(0))
	if err != nil {
		t.Fatal(err)
	}
	if got := runEvents(t, w, n); got != n {
		t.Fatalf("ran %d events, want %d", got, n)
	}
	return ft
}

type fileCounts struct{ reads, writes, fsyncs, bytesRead, bytesWritten uint64 }

func countsOf(ft *fileTest) fileCounts {
	return fileCounts{ft.reads.Load(), ft.writes.Load(), ft.fsyncs.Load(), ft.bytesRead.Load(), ft.bytesWritten.Load()}
}

// Every mode does real I/O of the right kind, in each I/O mode, and reads
// back what was written with --validate on.
func TestFileioModes(t *testing.T) {
	for _, io := range []string{"sync", "async", "mmap"} {
		t.Run(io, func(t *testing.T) {
			dir := prepareSmall(t, true)
			opt := "--file-io-mode=" + io
			// 200 events: 4 fsync requests after every 100 requests, and
			// 4 more at the end (--file-fsync-end).
			c := countsOf(runFileio(t, dir, true, 200, "--file-test-mode=seqwr", opt))
			if c != (fileCounts{0, 196, 8, 0, 196 * 4096}) {
				t.Errorf("seqwr: %+v", c)
			}
			// seqwr recreated the files: 196 blocks written, 64 KiB each.
			for i := 0; i < 4; i++ {
				st, err := os.Stat(filepath.Join(dir, fmt.Sprintf("test_file.%d", i)))
				if err != nil || st.Size() != 64<<10 {
					t.Fatalf("after seqwr test_file.%d: %v %v", i, st, err)
				}
			}
			c = countsOf(runFileio(t, dir, true, 100, "--file-test-mode=seqrewr", opt))
			if c != (fileCounts{0, 100, 4, 0, 100 * 4096}) {
				t.Errorf("seqrewr: %+v", c)
			}
			c = countsOf(runFileio(t, dir, true, 100, "--file-test-mode=seqrd", opt))
			if c != (fileCounts{100, 0, 0, 100 * 4096, 0}) {
				t.Errorf("seqrd: %+v", c)
			}
			c = countsOf(runFileio(t, dir, true, 100, "--file-test-mode=rndrd", opt))
			if c != (fileCounts{100, 0, 0, 100 * 4096, 0}) {
				t.Errorf("rndrd: %+v", c)
			}
			c = countsOf(runFileio(t, dir, true, 100, "--file-test-mode=rndwr", opt))
			if c != (fileCounts{0, 100, 4, 0, 100 * 4096}) {
				t.Errorf("rndwr: %+v", c)
			}
			c = countsOf(runFileio(t, dir, true, 250, "--file-test-mode=rndrw", opt, "--file-fsync-freq=0"))
			// The mix steers by completed requests, as the reference's: in
			// async mode requests in flight are not counted yet, so it
			// strays further from 100 writes before it corrects.
			lo, hi := uint64(80), uint64(120)
			if io == "async" {
				lo, hi = 60, 140
			}
			if c.reads+c.writes != 250 || c.fsyncs != 4 || c.bytesRead != c.reads*4096 || c.writes < lo || c.writes > hi {
				t.Errorf("rndrw: %+v (want reads:writes near 1.5, %d to %d writes)", c, lo, hi)
			}
			// Everything written above still validates.
			runFileio(t, dir, true, 64, "--file-test-mode=seqrd", opt)
		})
	}
}

func TestFileioFsyncOptions(t *testing.T) {
	dir := prepareSmall(t, false)
	c := countsOf(runFileio(t, dir, false, 50, "--file-test-mode=rndwr", "--file-fsync-all"))
	if c.writes != 50 || c.fsyncs != 50 {
		t.Errorf("--file-fsync-all: %+v, want a fsync per write", c)
	}
	c = countsOf(runFileio(t, dir, false, 50, "--file-test-mode=rndwr", "--file-fsync-freq=10",
		"--file-fsync-end=off", "--file-fsync-mode=fdatasync"))
	// Every 10 requests, one fsync per file (4) and the last round is
	// cut short by the 50-event limit.
	if c.writes+c.fsyncs != 50 || c.fsyncs < 12 {
		t.Errorf("--file-fsync-freq=10: %+v", c)
	}
	c = countsOf(runFileio(t, dir, false, 16, "--file-test-mode=seqrd", "--file-merged-requests=4"))
	if c.reads != 16 || c.bytesRead != 16*16384 {
		t.Errorf("merged requests: %+v, want 16 reads of 16 KiB", c)
	}
}

func TestFileioDirectIO(t *testing.T) {
	if oDirect == 0 {
		t.Skip("no O_DIRECT on this system")
	}
	dir := t.TempDir()
	fd, err := syscall.Open(filepath.Join(dir, "probe"), syscall.O_CREAT|syscall.O_RDWR|oDirect, 0o600)
	if err != nil {
		t.Skipf("O_DIRECT not supported in %s: %v", dir, err)
	}
	syscall.Close(fd)
	fileCommand(t, newSmallFileio(t, dir, true, "--file-extra-flags=direct"), "prepare")
	for _, mode := range []string{"rndrw", "seqrewr", "seqrd"} {
		c := countsOf(runFileio(t, dir, true, 40, "--file-test-mode="+mode,
			"--file-extra-flags=direct,dsync", "--file-merged-requests=2"))
		if c.reads+c.writes == 0 {
			t.Errorf("%s with O_DIRECT: no I/O %+v", mode, c)
		}
	}
}

// --validate finds a corrupted block and a block at the wrong offset.
func TestFileioValidateDetectsCorruption(t *testing.T) {
	dir := prepareSmall(t, true)
	path := filepath.Join(dir, "test_file.0")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Flip a byte in block 3, and copy block 5 over block 9.
	b[3*4096+100] ^= 0xff
	copy(b[9*4096:10*4096], b[5*4096:6*4096])
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	ft := newSmallFileio(t, dir, true, "--file-test-mode=seqrd")
	ctx := context.Background()
	if err := initAndPrepare(ctx, ft); err != nil {
		t.Fatal(err)
	}
	defer ft.Done(ctx)
	w, _ := ft.NewWorker(ctx, 0, metrics.NewHandle(0))
	var errs []string
	for i := 0; i < 16; i++ {
		if _, err := w.Event(ctx); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) != 2 {
		t.Fatalf("%d validation errors, want 2: %q", len(errs), errs)
	}
	checksum := regexp.MustCompile(`^Checksum mismatch in block with offset: 12288\n` +
		`FATAL:     Calculated value: 0x[0-9a-f]+    Stored value: 0x[0-9a-f]+\n` +
		`FATAL: Validation failed on file 0, block offset 12288, exiting...$`)
	if !checksum.MatchString(errs[0]) {
		t.Errorf("first error:\n%s", errs[0])
	}
	if want := "Offset mismatch in block:\nFATAL:    Actual offset: 36864    Stored offset: 20480\n" +
		"FATAL: Validation failed on file 0, block offset 36864, exiting..."; errs[1] != want {
		t.Errorf("second error:\n%s\nwant\n%s", errs[1], want)
	}
}

// Several threads on random blocks with --validate never see each
// other's half-written block.
func TestFileioValidateThreads(t *testing.T) {
	for _, io := range []string{"sync", "async"} {
		dir := prepareSmall(t, true)
		env := testEnv(2, append(append([]string{}, smallFiles...), "--file-test-mode=rndrw",
			"--file-io-mode="+io, "--file-async-backlog=8")...)
		env.Validate = true
		ft, err := newFileioIn(env, dir)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := initAndPrepare(ctx, ft); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 2)
		for tid := 0; tid < 2; tid++ {
			go func() {
				w, _ := ft.NewWorker(ctx, tid, metrics.NewHandle(tid))
				defer w.Close()
				for i := 0; i < 300; i++ {
					if _, err := w.Event(ctx); err != nil {
						errc <- err
						return
					}
				}
				errc <- w.Done(ctx)
			}()
		}
		for range 2 {
			if err := <-errc; err != nil {
				t.Errorf("%s: %v", io, err)
			}
		}
		if c := countsOf(ft); c.reads == 0 || c.writes == 0 {
			t.Errorf("%s: %+v", io, c)
		}
		ft.Done(ctx)
	}
}
