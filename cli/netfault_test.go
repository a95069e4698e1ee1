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
//
// The proxy is also the test's eyes: it notes when each connection last
// sent a request and last had a reply delivered, from which the test
// bounds the run's outage with no tolerance (outageBounds): a reply
// followed by a request on the same connection is an event its worker
// completed in between.

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
)

// The proxy's commands, one per line on its standard input.
const (
	cmdImpair    = "impair"    // impair DELAY LOSS: "impair 2ms 0.01"
	cmdPartition = "partition" // forward nothing until heal
	cmdHeal      = "heal"
	cmdProbe     = "probe" // what the connections did: see probe
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
	healedAt    int64   // when the last partition healed (UnixNano)
	links       []*link // every connection so far
	parted      []*link // those open when the partition began
}

// link is what the proxy saw of one connection (times in UnixNano),
// under impairment.mu.
type link struct {
	open      bool
	request   int64 // when a request (bytes from the client) last came
	reply     int64 // when a reply (bytes to the client) was last written
	healReply int64 // the first reply written after the heal
	recovered int64 // the first request after healReply
}

// sawRequest notes bytes from the client of l.
func (im *impairment) sawRequest(l *link) {
	now := time.Now().UnixNano()
	im.mu.Lock()
	l.request = now
	if l.healReply != 0 && l.recovered == 0 {
		l.recovered = now
	}
	im.mu.Unlock()
}

// deliver notes a reply about to be written to the client of l: before
// the write, so that the client cannot have it earlier.
func (im *impairment) deliver(l *link) {
	now := time.Now().UnixNano()
	im.mu.Lock()
	l.reply = now
	if im.healedAt != 0 && l.healReply == 0 {
		l.healReply = now
	}
	im.mu.Unlock()
}

// probe is what the connections did, for the test's bounds on an outage
// (UnixNano, 0 for not yet): whether every connection open when the
// partition began has sent a request after its last reply, or closed (it
// gave up a call that waited); the latest of those requests, by which
// every worker had completed its last event and started the one that
// waits; the latest reply that a request followed on its connection,
// after which an event completed (asked before the heal); and the
// earliest request that followed a reply written after the heal, before
// which an event completed.
func (im *impairment) probe() (waiting bool, startBy, startFrom, recovered int64) {
	im.mu.Lock()
	defer im.mu.Unlock()
	waiting = true
	for _, l := range im.parted {
		if l.open && l.request <= l.reply {
			waiting = false
		}
		startBy = max(startBy, l.request)
	}
	for _, l := range im.links {
		if l.request > l.reply {
			startFrom = max(startFrom, l.reply)
		}
		if l.recovered != 0 && (recovered == 0 || l.recovered < recovered) {
			recovered = l.recovered
		}
	}
	return waiting, startBy, startFrom, recovered
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
// delivered after its hold, in order, and not while partitioned. toClient
// says which way it goes on the connection l, for the notes.
func (im *impairment) forward(dst, src net.Conn, l *link, toClient bool) {
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
			if toClient {
				im.deliver(l)
			}
			if _, err := dst.Write(c.b); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !toClient {
				im.sawRequest(l)
			}
			q <- chunk{b: append([]byte(nil), buf[:n]...), at: time.Now().Add(im.hold())}
		}
		if err != nil {
			if !toClient {
				im.mu.Lock()
				l.open = false
				im.mu.Unlock()
			}
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
				l := &link{open: true}
				im.mu.Lock()
				im.links = append(im.links, l)
				im.mu.Unlock()
				go im.forward(s, c, l, false)
				im.forward(c, s, l, true)
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
		if f[0] == cmdProbe {
			waiting, startBy, startFrom, recovered := im.probe()
			fmt.Println("ok", cmdProbe, waiting, startBy, startFrom, recovered)
			continue
		}
		im.mu.Lock()
		at := time.Now().UnixNano()
		switch f[0] {
		case cmdImpair:
			im.delay, _ = time.ParseDuration(f[1])
			im.loss, _ = strconv.ParseFloat(f[2], 64)
		case cmdPartition:
			// The notes start again from the connections open now:
			// the run's (an earlier run's are closed).
			im.partitioned = true
			im.healedAt = 0
			open := im.links[:0]
			for _, l := range im.links {
				if l.open {
					l.healReply, l.recovered = 0, 0
					open = append(open, l)
				}
			}
			im.links = open
			im.parted = append(im.parted[:0], open...)
		case cmdHeal:
			im.partitioned = false
			im.healedAt = at
			im.healed.Broadcast()
		}
		im.mu.Unlock()
		fmt.Println("ok", f[0], at)
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
// the command is in force by then, since the time the proxy gives.
func (nf *netfault) send(cmd string) time.Time {
	nf.t.Helper()
	f := nf.ask(cmd)
	if len(f) < 1 {
		nf.t.Fatalf("proxy: %s: no time in its answer", cmd)
	}
	return unixNano(nf.t, f[0])
}

// ask gives the proxy a command and returns the fields of its answer
// after "ok CMD".
func (nf *netfault) ask(cmd string) []string {
	nf.t.Helper()
	fmt.Fprintln(nf.ctl, cmd)
	if !nf.acks.Scan() || !strings.HasPrefix(nf.acks.Text(), "ok "+strings.Fields(cmd)[0]) {
		nf.t.Fatalf("proxy: %s: %q", cmd, nf.acks.Text())
	}
	return strings.Fields(nf.acks.Text())[2:]
}

func unixNano(t *testing.T, s string) time.Time {
	t.Helper()
	ns, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("proxy: a time of %q", s)
	}
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// probe asks the proxy what the connections did (impairment.probe).
func (nf *netfault) probe() (waiting bool, startBy, startFrom, recovered time.Time) {
	nf.t.Helper()
	f := nf.ask(cmdProbe)
	if len(f) != 4 {
		nf.t.Fatalf("proxy: probe: %q", f)
	}
	return f[0] == "true", unixNano(nf.t, f[1]), unixNano(nf.t, f[2]), unixNano(nf.t, f[3])
}

// netRun is a run of the binary in the namespace, through the proxy.
type netRun struct {
	seconds chan int // each intermediate report's second, as printed
	text    testenv.Buffer
	done    chan struct{}
	err     error
}

// run starts the test's binary in the namespace with args, through the
// proxy.
func (nf *netfault) run(args []string) *netRun {
	cmd := nf.inNS(nf.bin, append(args, netfaultPG(netfaultProxyPort)...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		nf.t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		nf.t.Fatal(err)
	}
	r := &netRun{seconds: make(chan int, 1000), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(io.TeeReader(out, &r.text))
		for sc.Scan() {
			if m := intervalRE.FindStringSubmatch(sc.Text()); m != nil {
				s, _ := strconv.Atoi(m[1])
				r.seconds <- s
			}
		}
		r.err = cmd.Wait()
	}()
	return r
}

// reached waits for the run to print its intermediate report of second
// s; the run's end ends the wait, and fails the test.
func (r *netRun) reached(t *testing.T, s int) {
	t.Helper()
	for {
		select {
		case got := <-r.seconds:
			if got >= s {
				return
			}
		case <-r.done:
			t.Fatalf("the run ended before its report of second %d\n%s", s, r.text.String())
		}
	}
}

// until polls cond every 10 ms until it holds; the run's end ends the
// wait, and fails the test: the run's --time bounds the test's waits.
func (r *netRun) until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-r.done:
			t.Fatalf("the run ended before %s\n%s", what, r.text.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// wait waits for the run to end: its output and error.
func (r *netRun) wait() (string, error) {
	<-r.done
	return r.text.String(), r.err
}

// waited bounds the start of a partition's outage from the proxy's notes,
// once every worker waits behind the partition.
func (nf *netfault) waited(t *testing.T, r *netRun) outageBounds {
	t.Helper()
	var b outageBounds
	r.until(t, "every worker waited behind the partition", func() bool {
		var waiting bool
		waiting, b.startBy, b.startFrom, _ = nf.probe()
		return waiting
	})
	if b.startFrom.IsZero() {
		t.Fatalf("the proxy saw no event completed before the partition\n%s", r.text.String())
	}
	return b
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
// loss from its start, then a partition of 2 s, then the network back.
// Its latency holds the delay, no event completes behind the partition
// (the intervals that lie wholly in it show none), an event completes
// after it, and the run prints its final report.
func (nf *netfault) impaired(t *testing.T) {
	nf.t = t
	nf.send(cmdImpair + " 2ms 0.01")
	defer nf.send(cmdImpair + " 0s 0")
	defer nf.send(cmdHeal) // after a failure too: the next parts share the proxy
	results := filepath.Join(nf.dir, "impaired.json")
	r := nf.run([]string{"oltp_point_select", "--threads=4", "--time=8", "--report-interval=1",
		"--results=" + results, "run"})
	r.reached(t, 3) // three whole seconds through the impaired network
	nf.send(cmdPartition)
	b := nf.waited(t, r)
	time.Sleep(time.Until(b.startBy.Add(2 * time.Second))) // the partition's length
	healing := time.Now()
	nf.send(cmdHeal)
	r.until(t, "an event completed after the heal", func() bool {
		_, _, _, back := nf.probe()
		return !back.IsZero()
	})
	text, err := r.wait()
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text)
	}
	t.Logf("the run through the impaired network:\n%s", text)
	if !strings.Contains(text, "Threads fairness") {
		t.Fatalf("no final report\n%s", text)
	}
	// The delay is in the latency: 2 ms each way, at least 4 ms a query,
	// in the seconds reported before the partition was made.
	p95 := map[int]float64{}
	for _, l := range strings.Split(text, "\n") {
		if m := intervalRE.FindStringSubmatch(l); m != nil {
			s, _ := strconv.Atoi(m[1])
			p95[s], _ = strconv.ParseFloat(m[3], 64)
		}
	}
	for s := 1; s <= 3; s++ {
		if p95[s] < 4 {
			t.Errorf("p95 of %g ms in second %d, with 2 ms of delay each way\n%s", p95[s], s, text)
		}
	}
	// No event completed behind the partition: from the moment every
	// worker waited on it to the heal.
	res := readResults(t, results)
	whole := 0
	for _, iv := range res.Intervals {
		from := res.Total.Start.Add(time.Duration((iv.Time - iv.Duration) * float64(time.Second)))
		to := res.Total.Start.Add(time.Duration(iv.Time * float64(time.Second)))
		if !from.Before(b.startBy) && !to.After(healing) {
			whole++
			if iv.Counters.Events != 0 {
				t.Errorf("%d events in the interval ending at %.1f s, which lies in the partition (%s .. %s)\n%s",
					iv.Counters.Events, iv.Time, b.startBy.Format(stampMicro), healing.Format(stampMicro), text)
			}
		}
	}
	t.Logf("%d whole intervals in the partition", whole)
}

// A write workload through a partition of 1.5 s that heals: the report
// shows one outage, which began after the last reply the proxy let
// through that a request followed, and by the time every worker waited
// behind the partition, and ended after the heal and by the first
// request that followed a reply after it; the run ended on time. (Paced
// by --rate: the run outlasts the test's steps on a loaded machine, for
// little CPU.)
func (nf *netfault) partitionOutage(t *testing.T) {
	nf.t = t
	defer nf.send(cmdHeal)
	results := filepath.Join(nf.dir, "partition.json")
	const runTime = 5 * time.Second
	r := nf.run([]string{"oltp_insert", "--threads=4", "--rate=200", "--time=5", "--report-interval=1",
		"--results=" + results, "run"})
	r.reached(t, 1) // a second of events: the pace that makes a stall an outage
	nf.send(cmdPartition)
	b := nf.waited(t, r)
	// Longer than the outage threshold (1 s) from the moment the workers
	// waited: the outage is at least that long.
	time.Sleep(time.Until(b.startBy.Add(1500 * time.Millisecond)))
	b.endFrom = time.Now()
	nf.send(cmdHeal)
	r.until(t, "an event completed after the heal", func() bool {
		_, _, _, b.endBy = nf.probe()
		return !b.endBy.IsZero()
	})
	text, err := r.wait()
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text)
	}
	res := readResults(t, results)
	ranItsTime(t, res, text, runTime)
	b.check(t, res.Outages, text)
	if want := fmt.Sprintf("Availability:\n    outages:                             %d ", len(res.Outages)); !strings.Contains(text, want) {
		t.Errorf("no Availability block with the %d outages of the results file\n%s", len(res.Outages), text)
	}
}

// A partition that never heals, with --query-timeout: the queries waiting
// fail with HYT00 and their connections are given up, the run ends on
// time (not a grace later) and the outage, which began between the last
// reply a request followed and the moment every worker waited, is ongoing
// at its end.
func (nf *netfault) partitionNeverHeals(t *testing.T) {
	nf.t = t
	defer nf.send(cmdHeal)
	results := filepath.Join(nf.dir, "unhealed.json")
	const runTime = 4 * time.Second
	r := nf.run([]string{"oltp_insert", "--threads=4", "--rate=200", "--time=4", "--report-interval=1",
		"--query-timeout=0.5", "--pgsql-ignore-errors=HYT00", "--results=" + results, "run"})
	r.reached(t, 1)
	nf.send(cmdPartition)
	b := nf.waited(t, r)
	text, err := r.wait()
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text)
	}
	res := readResults(t, results)
	ranItsTime(t, res, text, runTime)
	o := b.check(t, res.Outages, text)
	if o.Failures[drivers.QueryTimeoutState] == 0 {
		t.Errorf("no query timeouts among the outage's failures %v\n%s", o.Failures, text)
	}
	if !strings.Contains(text, "ongoing at end of run") {
		t.Errorf("the report does not say the outage was ongoing at the end\n%s", text)
	}
}
