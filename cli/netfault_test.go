package cli

// A run through a bad network: a network namespace of the test's own,
// with its own loopback, holding a PostgreSQL server, the run, and between
// them an impairing proxy that the test controls — delay, loss and a
// partition. The kernel here has no netem qdisc, so the proxy stands in
// for it: it delays every chunk it forwards, holds a chunk back for a
// retransmission timeout (200 ms, Linux's minimum RTO) with the loss
// probability, keeping the stream's order as TCP does, and during a
// partition forwards nothing either way (the connections hang, as when a
// network drops every packet) until the partition heals. All traffic
// stays on the namespace's loopback.

import (
	"bufio"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/report"
)

// The proxy's commands, one per line on its standard input.
const (
	cmdImpair    = "impair"    // impair DELAY LOSS: "impair 2ms 0.01"
	cmdPartition = "partition" // forward nothing until heal
	cmdHeal      = "heal"
)

// rto is how long a lost chunk is held back: Linux's minimum
// retransmission timeout.
const rto = 200 * time.Millisecond

// impairment is the proxy's state, changed by its commands.
type impairment struct {
	mu          sync.Mutex
	delay       time.Duration
	loss        float64
	partitioned bool
	healed      *sync.Cond
}

// hold is how long a chunk arriving now waits before it is delivered.
func (im *impairment) hold() time.Duration {
	im.mu.Lock()
	defer im.mu.Unlock()
	d := im.delay
	if im.loss > 0 && rand.Float64() < im.loss {
		d += rto
	}
	return d
}

// waitHealed returns when no partition is on.
func (im *impairment) waitHealed() {
	im.mu.Lock()
	for im.partitioned {
		im.healed.Wait()
	}
	im.mu.Unlock()
}

// forward copies src to dst through the impairment: each chunk is
// delivered after its hold, in order, and not while partitioned.
func (im *impairment) forward(dst, src net.Conn) {
	type chunk struct {
		b  []byte
		at time.Time
	}
	q := make(chan chunk, 4096)
	go func() {
		defer dst.Close()
		for c := range q {
			time.Sleep(time.Until(c.at))
			im.waitHealed()
			if _, err := dst.Write(c.b); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			q <- chunk{b: append([]byte(nil), buf[:n]...), at: time.Now().Add(im.hold())}
		}
		if err != nil {
			close(q)
			return
		}
	}
}

// TestNetfaultProxyHelper is the impairing proxy, run by TestNetworkFaults
// as a process inside its network namespace: it listens on the first
// address of SBTEST_NETFAULT_PROXY ("listen->target"), forwards to the
// second and reads its commands from standard input.
func TestNetfaultProxyHelper(t *testing.T) {
	spec := os.Getenv("SBTEST_NETFAULT_PROXY")
	if spec == "" {
		t.Skip("the proxy of TestNetworkFaults, run in its network namespace")
	}
	listen, target, _ := strings.Cut(spec, "->")
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		t.Fatal(err)
	}
	im := &impairment{}
	im.healed = sync.NewCond(&im.mu)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				im.waitHealed() // a partition lets no connection through
				s, err := net.Dial("tcp", target)
				if err != nil {
					c.Close()
					return
				}
				go im.forward(s, c)
				im.forward(c, s)
			}()
		}
	}()
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		im.mu.Lock()
		switch f[0] {
		case cmdImpair:
			im.delay, _ = time.ParseDuration(f[1])
			im.loss, _ = strconv.ParseFloat(f[2], 64)
		case cmdPartition:
			im.partitioned = true
		case cmdHeal:
			im.partitioned = false
			im.healed.Broadcast()
		}
		im.mu.Unlock()
		fmt.Println("ok", f[0])
	}
	ln.Close()
}

var intervalRE = regexp.MustCompile(`^\[ (\d+)s \] thds: \d+ tps: ([\d.]+) .* lat \(ms,95%\): ([\d.]+)`)

// netfault is a network namespace holding PostgreSQL and the impairing
// proxy in front of it, for the runs of the tests below.
type netfault struct {
	t    *testing.T
	bin  string
	dir  string
	inNS func(name string, args ...string) *exec.Cmd
	ctl  io.WriteCloser
	acks *bufio.Scanner
}

const netfaultServerPort, netfaultProxyPort = "15432", "16432"

// newNetfault makes the namespace, starts the servers in it (their ports
// are the namespace's: the suite's own servers are outside it), prepares
// one table of 1000 rows and starts the proxy. It skips the test, or
// fails it under CI, without root or ip(8).
func newNetfault(t *testing.T) *netfault {
	if os.Getuid() != 0 {
		testenv.Unavailable(t, "a network namespace needs root")
		return nil
	}
	ipCmd, err := exec.LookPath("ip")
	if err != nil {
		testenv.Unavailable(t, "no ip(8) (Debian: iproute2)")
		return nil
	}
	nf := &netfault{t: t, bin: testenv.Binary(t), dir: t.TempDir()}
	var b [4]byte
	_, _ = crand.Read(b[:])
	ns := "sbtest-" + hex.EncodeToString(b[:])
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ipCmd, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	ip("netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command(ipCmd, "netns", "del", ns).Run() })
	ip("-n", ns, "link", "set", "lo", "up")
	nf.inNS = func(name string, args ...string) *exec.Cmd {
		return exec.Command(ipCmd, append([]string{"netns", "exec", ns, name}, args...)...)
	}

	dir, err := os.MkdirTemp("", "sbnf-")
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	testdb := filepath.Join(cwd, "..", "scripts", "testdb.sh") // the repository's, from cli/
	testdbCmd := func(verb string) *exec.Cmd {
		c := nf.inNS("bash", testdb, verb, dir)
		c.Env = append(os.Environ(), "SBTEST_PGSQL_PORT="+netfaultServerPort, "SBTEST_MYSQL_PORT=13306")
		return c
	}
	if out, err := testdbCmd("start").CombinedOutput(); err != nil {
		_ = testdbCmd("stop").Run()
		testenv.Unavailable(t, fmt.Sprintf("no servers in the namespace: %v\n%s", err, out))
		return nil
	}
	t.Cleanup(func() { _ = testdbCmd("stop").Run() })
	if out, err := nf.inNS(nf.bin, append([]string{"oltp_point_select", "prepare"}, netfaultPG(netfaultServerPort)...)...).CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}

	proxy := nf.inNS(os.Args[0], "-test.run=^TestNetfaultProxyHelper$")
	proxy.Env = append(os.Environ(), "SBTEST_NETFAULT_PROXY=127.0.0.1:"+netfaultProxyPort+"->127.0.0.1:"+netfaultServerPort)
	if nf.ctl, err = proxy.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	pout, err := proxy.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	proxy.Stderr = os.Stderr
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nf.ctl.Close(); _ = proxy.Wait() })
	nf.acks = bufio.NewScanner(pout)
	if !nf.acks.Scan() || nf.acks.Text() != "ready" {
		t.Fatalf("the proxy did not start: %q", nf.acks.Text())
	}
	return nf
}

// netfaultPG are the options of a run against the server at port.
func netfaultPG(port string) []string {
	return []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=" + port,
		"--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest", "--pgsql-sslmode=disable",
		"--tables=1", "--table-size=1000"}
}

// send gives the proxy a command and returns once it acknowledged it:
// the command is in force by then.
func (nf *netfault) send(cmd string) {
	nf.t.Helper()
	fmt.Fprintln(nf.ctl, cmd)
	if !nf.acks.Scan() || !strings.HasPrefix(nf.acks.Text(), "ok") {
		nf.t.Fatalf("proxy: %s: %q", cmd, nf.acks.Text())
	}
}

// run runs the test's binary in the namespace with args, through the
// proxy; at is called with each intermediate report's second as it is
// printed. It returns the output and the run's error.
func (nf *netfault) run(args []string, at func(s int, tps float64, p95 float64)) (string, error) {
	run := nf.inNS(nf.bin, append(args, netfaultPG(netfaultProxyPort)...)...)
	out, err := run.StdoutPipe()
	if err != nil {
		nf.t.Fatal(err)
	}
	run.Stderr = run.Stdout
	if err := run.Start(); err != nil {
		nf.t.Fatal(err)
	}
	var text strings.Builder
	sc := bufio.NewScanner(io.TeeReader(out, &text))
	for sc.Scan() {
		m := intervalRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		s, _ := strconv.Atoi(m[1])
		tps, _ := strconv.ParseFloat(m[2], 64)
		p95, _ := strconv.ParseFloat(m[3], 64)
		at(s, tps, p95)
	}
	err = run.Wait()
	return text.String(), err
}

// TestNetworkFaults runs through the impaired network, in one namespace
// and one pair of servers for its parts. (Needs root and ip(8), for the
// network namespace.)
func TestNetworkFaults(t *testing.T) {
	t.Parallel()
	nf := newNetfault(t)
	if nf == nil {
		return
	}
	t.Run("impaired", nf.impaired)
	t.Run("partition outage", nf.partitionOutage)
	t.Run("partition never heals", nf.partitionNeverHeals)
}

// A run survives a bad network by itself: 2 ms of delay each way and 1%
// loss, then a 3 s partition, then the network back; it keeps running,
// recovers after the partition and prints its final report.
func (nf *netfault) impaired(t *testing.T) {
	nf.t = t
	tps := map[int]float64{}
	p95 := map[int]float64{}
	text, err := nf.run([]string{"oltp_point_select", "--threads=4", "--time=14", "--report-interval=1", "run"},
		func(s int, tp, p float64) {
			tps[s], p95[s] = tp, p
			switch s {
			case 2:
				nf.send(cmdImpair + " 2ms 0.01")
			case 6:
				nf.send(cmdPartition)
			case 9:
				nf.send(cmdHeal)
			case 11:
				nf.send(cmdImpair + " 0s 0")
			}
		})
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text)
	}
	t.Logf("the run through the impaired network:\n%s", text)
	if !strings.Contains(text, "Threads fairness") {
		t.Fatalf("no final report\n%s", text)
	}
	// The delay is in the latency: 2 ms each way, at least 4 ms a query.
	if p95[4] < 4 || p95[5] < 4 {
		t.Errorf("p95 of %g and %g ms with 2 ms of delay each way\n%s", p95[4], p95[5], text)
	}
	// The partition stopped the run (no event in a whole second of it),
	// and it went on after.
	if tps[8] != 0 {
		t.Errorf("%g events/s in the partition\n%s", tps[8], text)
	}
	if tps[12] == 0 || tps[13] == 0 {
		t.Errorf("no events after the partition healed\n%s", text)
	}
}

// outageTolerance is how far an outage's edges may lie from the moments
// the test saw the partition begin and end. The partition is in force
// when the proxy acknowledges it, and the last event completed before
// then: within one write event's latency (milliseconds; tens on this
// 2-core machine under load) plus the command's round trip. After the
// heal, the held bytes go through at once and the first event completes
// within its remaining queries' round trips. 0.5 s is ten times that.
const outageTolerance = 500 * time.Millisecond

// readOutages reads the outages of a results file.
func readOutages(t *testing.T, path string) []report.Outage {
	t.Helper()
	r, err := report.ReadFile(path)
	if err != nil {
		t.Fatalf("the results file: %v", err)
	}
	return r.Outages
}

func within(a, b time.Time, tol time.Duration) bool {
	d := a.Sub(b)
	return d <= tol && d >= -tol
}

// A write workload through a partition of 2 s that heals: the report
// shows one outage that matches the partition the test made, within
// outageTolerance, and the run ends on time.
func (nf *netfault) partitionOutage(t *testing.T) {
	nf.t = t
	results := filepath.Join(nf.dir, "partition.json")
	var parted, healed time.Time
	const runTime = 4 * time.Second
	began := time.Now()
	text, err := nf.run([]string{"oltp_insert", "--threads=4", "--time=4", "--report-interval=1",
		"--results=" + results, "run"}, func(s int, _, _ float64) {
		switch s {
		case 1:
			nf.send(cmdPartition)
			parted = time.Now()
		case 3:
			nf.send(cmdHeal)
			healed = time.Now()
		}
	})
	elapsed := time.Since(began)
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text)
	}
	if parted.IsZero() || healed.IsZero() {
		t.Fatalf("the run did not reach its third second\n%s", text)
	}
	// Start-up (connections) and the end (the results file) take some
	// of a second; --time's grace for events still running is 5 s.
	if elapsed > runTime+2*time.Second {
		t.Errorf("the run took %s for --time=4\n%s", elapsed, text)
	}
	got := readOutages(t, results)
	if len(got) != 1 {
		t.Fatalf("outages %+v, want 1 for the partition %s .. %s\n%s", got, parted.Format(time.StampMilli), healed.Format(time.StampMilli), text)
	}
	o := got[0]
	seen := healed.Sub(parted)
	t.Logf("partition seen %s, outage %.3fs: began %s from the partition, ended %s from the heal",
		seen, o.Duration, o.StartTime.Sub(parted), o.EndTime.Sub(healed))
	if o.Ongoing || !within(o.StartTime, parted, outageTolerance) || !within(o.EndTime, healed, outageTolerance) ||
		time.Duration(o.Duration*1e9)-seen > outageTolerance || seen-time.Duration(o.Duration*1e9) > outageTolerance {
		t.Errorf("outage %+v, want %s .. %s (%s) within %s\n%s", o, parted.Format(time.StampMilli), healed.Format(time.StampMilli), seen, outageTolerance, text)
	}
	if !strings.Contains(text, "Availability:\n    outages:                             1 ") {
		t.Errorf("no Availability block with one outage\n%s", text)
	}
}

// A partition that never heals, with --query-timeout: the queries waiting
// fail with HYT00 and their connections are given up, the run ends on
// time (not a grace later) and the outage is ongoing at its end.
func (nf *netfault) partitionNeverHeals(t *testing.T) {
	nf.t = t
	results := filepath.Join(nf.dir, "unhealed.json")
	var parted time.Time
	const runTime = 3 * time.Second
	began := time.Now()
	defer nf.send(cmdHeal)
	text, err := nf.run([]string{"oltp_insert", "--threads=4", "--time=3", "--report-interval=1",
		"--query-timeout=0.5", "--pgsql-ignore-errors=HYT00", "--results=" + results, "run"}, func(s int, _, _ float64) {
		if s == 1 {
			nf.send(cmdPartition)
			parted = time.Now()
		}
	})
	elapsed := time.Since(began)
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text)
	}
	if parted.IsZero() {
		t.Fatalf("the run did not reach its first second\n%s", text)
	}
	// On time: --time's grace (5 s) is not waited for.
	if elapsed > runTime+2*time.Second {
		t.Errorf("the run took %s for --time=3 with --query-timeout\n%s", elapsed, text)
	}
	got := readOutages(t, results)
	if len(got) != 1 || !got[0].Ongoing || !within(got[0].StartTime, parted, outageTolerance) {
		t.Fatalf("outages %+v, want 1 ongoing from the partition at %s\n%s", got, parted.Format(time.StampMilli), text)
	}
	if got[0].Failures[drivers.QueryTimeoutState] == 0 {
		t.Errorf("no query timeouts among the outage's failures %v\n%s", got[0].Failures, text)
	}
	if !strings.Contains(text, "ongoing at end of run") {
		t.Errorf("the report does not say the outage was ongoing at the end\n%s", text)
	}
}
