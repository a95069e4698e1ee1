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

	"github.com/sysbench-go/sysbench-go/internal/testenv"
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

// A run survives a bad network by itself: 2 ms of delay each way and 1%
// loss, then a 3 s partition, then the network back; it keeps running,
// recovers after the partition and prints its final report. (Needs root
// and ip(8), for the network namespace.)
func TestNetworkFaults(t *testing.T) {
	t.Parallel()
	if os.Getuid() != 0 {
		testenv.Unavailable(t, "a network namespace needs root")
		return
	}
	ipCmd, err := exec.LookPath("ip")
	if err != nil {
		testenv.Unavailable(t, "no ip(8) (Debian: iproute2)")
		return
	}
	bin := testenv.Binary(t)
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
	inNS := func(name string, args ...string) *exec.Cmd {
		return exec.Command(ipCmd, append([]string{"netns", "exec", ns, name}, args...)...)
	}

	// The servers, inside the namespace: its ports are its own.
	dir, err := os.MkdirTemp("", "sbnf-")
	if err != nil {
		t.Fatal(err)
	}
	cwd, _ := os.Getwd()
	testdb := filepath.Join(cwd, "..", "scripts", "testdb.sh") // the repository's, from cli/
	const serverPort, proxyPort = "15432", "16432"
	// The ports are the namespace's: the suite's own servers (make test
	// exports their ports) are outside it.
	testdbCmd := func(verb string) *exec.Cmd {
		c := inNS("bash", testdb, verb, dir)
		c.Env = append(os.Environ(), "SBTEST_PGSQL_PORT="+serverPort, "SBTEST_MYSQL_PORT=13306")
		return c
	}
	if out, err := testdbCmd("start").CombinedOutput(); err != nil {
		_ = testdbCmd("stop").Run()
		testenv.Unavailable(t, fmt.Sprintf("no servers in the namespace: %v\n%s", err, out))
		return
	}
	t.Cleanup(func() { _ = testdbCmd("stop").Run() })
	pg := func(port string) []string {
		return []string{"--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=" + port,
			"--pgsql-user=sbtest", "--pgsql-password=sbtest", "--pgsql-db=sbtest", "--pgsql-sslmode=disable",
			"--tables=1", "--table-size=1000"}
	}
	if out, err := inNS(bin, append([]string{"oltp_point_select", "prepare"}, pg(serverPort)...)...).CombinedOutput(); err != nil {
		t.Fatalf("prepare: %v\n%s", err, out)
	}

	proxy := inNS(os.Args[0], "-test.run=^TestNetfaultProxyHelper$")
	proxy.Env = append(os.Environ(), "SBTEST_NETFAULT_PROXY=127.0.0.1:"+proxyPort+"->127.0.0.1:"+serverPort)
	ctl, err := proxy.StdinPipe()
	if err != nil {
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
	t.Cleanup(func() { ctl.Close(); _ = proxy.Wait() })
	acks := bufio.NewScanner(pout)
	if !acks.Scan() || acks.Text() != "ready" {
		t.Fatalf("the proxy did not start: %q", acks.Text())
	}
	send := func(cmd string) {
		t.Helper()
		fmt.Fprintln(ctl, cmd)
		if !acks.Scan() || !strings.HasPrefix(acks.Text(), "ok") {
			t.Fatalf("proxy: %s: %q", cmd, acks.Text())
		}
	}

	// The run: its intervals drive the faults.
	run := inNS(bin, append([]string{"oltp_point_select", "--threads=4", "--time=14", "--report-interval=1", "run"}, pg(proxyPort)...)...)
	out, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	run.Stderr = run.Stdout
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	tps := map[int]float64{}
	p95 := map[int]float64{}
	sc := bufio.NewScanner(io.TeeReader(out, &text))
	for sc.Scan() {
		m := intervalRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		s, _ := strconv.Atoi(m[1])
		tps[s], _ = strconv.ParseFloat(m[2], 64)
		p95[s], _ = strconv.ParseFloat(m[3], 64)
		switch s {
		case 2:
			send(cmdImpair + " 2ms 0.01")
		case 6:
			send(cmdPartition)
		case 9:
			send(cmdHeal)
		case 11:
			send(cmdImpair + " 0s 0")
		}
	}
	err = run.Wait()
	if err != nil {
		t.Fatalf("the run failed: %v\n%s", err, text.String())
	}
	t.Logf("the run through the impaired network:\n%s", text.String())
	if !strings.Contains(text.String(), "Threads fairness") {
		t.Fatalf("no final report\n%s", text.String())
	}
	// The delay is in the latency: 2 ms each way, at least 4 ms a query.
	if p95[4] < 4 || p95[5] < 4 {
		t.Errorf("p95 of %g and %g ms with 2 ms of delay each way\n%s", p95[4], p95[5], text.String())
	}
	// The partition stopped the run (no event in a whole second of it),
	// and it went on after.
	if tps[8] != 0 {
		t.Errorf("%g events/s in the partition\n%s", tps[8], text.String())
	}
	if tps[12] == 0 || tps[13] == 0 {
		t.Errorf("no events after the partition healed\n%s", text.String())
	}
}
