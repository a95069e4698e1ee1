package cli

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/k8stest"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

var updateExample = flag.Bool("update-example", false, "rewrite deploy/kubernetes/example.yaml")

// exampleArgs are the README's example of 'deploy kubernetes'.
var exampleArgs = []string{"deploy", "kubernetes", "--instances=3", "--image=registry.example.com/sysbench-go:0.2.0",
	"oltp_read_write", "--db-driver=pgsql", "--pgsql-host=postgres.database.svc.cluster.local", "--pgsql-user=sbtest",
	"--pgsql-db=sbtest", "--tables=4", "--table-size=100000", "--threads=8", "--time=300", "--report-interval=10", "run"}

// TestDeployExample: the example manifests in the repository are what the
// command prints for the README's example (-update-example rewrites
// them; deploy's tests check them).
func TestDeployExample(t *testing.T) {
	t.Parallel()
	out, code := runCLI(t, exampleArgs...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	const file = "../deploy/kubernetes/example.yaml"
	if *updateExample {
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("%s is not what the command prints (go test -run TestDeployExample -update-example):\n%s", file, testenv.LineDiff(string(want), out))
	}
}

// TestDeployRefuses: a command line that would make manifests that
// cannot run is refused with one line.
func TestDeployRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ args, want string }{
		{"deploy", "Usage:"},
		{"deploy docker --instances=2 cpu run", "FATAL: deploy: 'docker': the only target is kubernetes"},
		{"deploy kubernetes cpu --time=10 run", "FATAL: deploy: --instances=N is needed"},
		{"deploy kubernetes --instances=2 cpu --time=0 run", "FATAL: deploy: --time must be more than 0"},
		{"deploy kubernetes --instances=2 cpu prepare", "FATAL: deploy: the run's command line must be TESTNAME [options] run"},
		{"deploy kubernetes --instances=2 oltp_read_write --pgsql-password=secret run", "FATAL: deploy: --pgsql-password would be written in the manifests"},
		{"deploy kubernetes --instances=2 cpu --start-at=1 run", "FATAL: deploy: --start-at is set by the manifests"},
		{"deploy kubernetes --instances=2 cpu --metrics_addr=:1 run", "FATAL: deploy: --metrics_addr is set by the manifests"},
		{"deploy kubernetes --instances=2 cpu --config-file=x run", "FATAL: deploy: --config-file"},
		{"deploy kubernetes --instances=2 oltp_read_write --tablez=1 run", "FATAL: deploy: invalid option: --tablez=1"},
		{"deploy kubernetes --instances=2 cpu --cpu-max-prim=1 run", "FATAL: deploy: invalid option: --cpu-max-prim=1"},
		// The run's own option parser's line, as the reference prints it.
		{"deploy kubernetes --instances=2 cpu --threads=x run", "FATAL: Invalid value for the 'threads' option: 'x'"},
		{"deploy kubernetes --instances=2 " + filepath.Join(dir, "none.lua") + " run", "FATAL: deploy: "},
		{"deploy kubernetes --instances=2 --name=Big cpu run", "FATAL: deploy: --name=Big"},
		{"deploy kubernetes --instances=x cpu run", "FATAL: deploy: invalid value for --instances: 'x'"},
	} {
		out, code := runCLI(t, strings.Fields(tc.args)...)
		if tc.want == "Usage:" {
			if !strings.HasPrefix(out, tc.want) {
				t.Errorf("%s: exit %d:\n%s", tc.args, code, out)
			}
			continue
		}
		// One FATAL line, after the warnings a run would print.
		lines := strings.Split(strings.TrimSpace(out), "\n")
		for _, l := range lines[:len(lines)-1] {
			if !strings.HasPrefix(l, "WARNING: ") {
				lines = nil
			}
		}
		if code != 1 || len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], tc.want) {
			t.Errorf("%s: exit %d:\n%s", tc.args, code, out)
		}
	}
}

// TestDeployScript: a script of the user's goes into a ConfigMap and the
// instances run it from there; its own options are checked.
func TestDeployScript(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "mine.lua")
	src := "sysbench.cmdline.options = {rows = {\"rows\", 10}}\nfunction event() end\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, "deploy", "kubernetes", "--instances=2", script, "--rows=5", "--time=10", "run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	o, err := k8stest.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if cm := o.ConfigMaps["sysbench-script"]; cm == nil || cm.Data["mine.lua"] != src {
		t.Errorf("the script's ConfigMap: %+v", cm)
	}
	if args := k8stest.Container(o.Jobs["sysbench"], "sysbench-go").Args; args[0] != "/etc/sysbench-go/mine.lua" || args[1] != "--rows=5" {
		t.Errorf("args %q", args)
	}
	if out, code := runCLI(t, "deploy", "kubernetes", "--instances=2", script, "--cols=5", "--time=10", "run"); code != 1 || !strings.Contains(out, "invalid option: --cols=5") {
		t.Errorf("an option the script does not take: exit %d\n%s", code, out)
	}
}

// pod is one process run as a pod of the manifests would run it.
type pod struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  strings.Builder
	seen chan string // each line of output
	done chan error
}

// startPod starts a pod's process with args, and env as its container's
// environment gives it (the Secret's password).
func startPod(t *testing.T, name string, args []string, env ...string) *pod {
	t.Helper()
	p := &pod{name: name, cmd: exec.Command(testenv.Binary(t), args...), seen: make(chan string, 1000), done: make(chan error, 1)}
	p.cmd.Env = append(slices.DeleteFunc(os.Environ(), func(v string) bool {
		return strings.HasPrefix(v, "PGPASSWORD=") || strings.HasPrefix(v, "MYSQL_PWD=")
	}), env...)
	r, w := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = w, w
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.seen <- sc.Text():
			default:
			}
		}
		_, _ = io.Copy(io.Discard, r) // past a line too long, so that the process never blocks
	}()
	go func() {
		err := p.cmd.Wait()
		w.Close()
		// The exit is known once every line is in out: Wait returns when
		// the last bytes are handed to the scanner, not when it has
		// stored them (a loaded run's start Job lost its FATAL line so).
		<-scanned
		p.done <- err
	}()
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

func (p *pod) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits for a line of output that contains s.
func (p *pod) waitFor(t *testing.T, s string, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case l := <-p.seen:
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("%s did not say %q within %s:\n%s", p.name, s, within, p.output())
		}
	}
}

// exit waits for the process's end and returns its exit status.
func (p *pod) exit(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		t.Fatalf("%s still runs after %s:\n%s", p.name, within, p.output())
		return -1
	}
}

// cluster is a rendered run as local processes: each pod's arguments as
// the manifests give them, with what only a cluster has (the pods' own
// /tmp, their DNS names, one port each) replaced by local equivalents.
type cluster struct {
	instance []string // the instances' args, $(JOB_COMPLETION_INDEX) not expanded
	start    []string
	// passwordEnv is the variable the instances get the Secret's
	// password in.
	passwordEnv string
	n           int
	ports       []string
	listen      string // where the start Job serves the merged file
	dir         string
}

func renderCluster(t *testing.T, deployArgs ...string) *cluster {
	t.Helper()
	out, code := runCLI(t, append([]string{"deploy", "kubernetes"}, deployArgs...)...)
	if code != 0 {
		t.Fatalf("deploy: exit %d\n%s", code, out)
	}
	o, err := k8stest.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	job := o.Jobs["sysbench"]
	c := &cluster{instance: k8stest.Container(job, "sysbench-go").Args, start: k8stest.Container(o.Jobs["sysbench-start"], "start").Args,
		n: int(*job.Spec.Completions), dir: t.TempDir()}
	for range c.n {
		c.ports = append(c.ports, freePort(t))
	}
	for _, e := range k8stest.Container(job, "sysbench-go").Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			c.passwordEnv = e.Name
		}
	}
	return c
}

// instanceArgs are instance k's arguments as its pod runs them.
func (c *cluster) instanceArgs(t *testing.T, k int) []string {
	var args []string
	for _, a := range c.instance {
		a, _ = k8stest.Expand(a, func(name string) (string, bool) {
			if name == "JOB_COMPLETION_INDEX" {
				return strconv.Itoa(k), true
			}
			return "", false
		})
		switch {
		case strings.HasPrefix(a, "--metrics-addr=:"):
			a = "--metrics-addr=127.0.0.1:" + c.ports[k]
		case strings.HasPrefix(a, "--results=/tmp/"):
			a = "--results=" + filepath.Join(c.dir, fmt.Sprintf("pod-%d-%s", k, strings.TrimPrefix(a, "--results=/tmp/")))
		}
		args = append(args, a)
	}
	return args
}

// startArgs are the start Job's arguments, the instances reached at
// their local ports; override replaces options.
func (c *cluster) startArgs(t *testing.T, override ...string) []string {
	var args []string
	for _, a := range c.start {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case strings.Contains(a, "{K}"):
			for _, p := range c.ports {
				args = append(args, "http://127.0.0.1:"+p)
			}
			continue
		case strings.HasPrefix(a, "--listen="):
			c.listen = "127.0.0.1:" + freePort(t)
			a = "--listen=" + c.listen
		case strings.HasPrefix(a, "--results=/tmp/"):
			a = "--results=" + filepath.Join(c.dir, "start-"+strings.TrimPrefix(a, "--results=/tmp/"))
		}
		for _, o := range override {
			if strings.HasPrefix(o, name+"=") {
				a = o
			}
		}
		args = append(args, a)
	}
	return args
}

// deployedRun is the run these tests deploy: the cpu test, paced so that
// three instances cost little CPU.
var deployedRun = []string{"cpu", "--cpu-max-prime=1000", "--threads=2", "--rate=150", "--time=2"}

// TestKubernetesRunLocally runs the manifests' processes: three instances,
// one of them late, and the start Job, which waits for all, starts them
// together, fetches their results and prints the merged report; every
// process then ends.
func TestKubernetesRunLocally(t *testing.T) {
	t.Parallel()
	c := renderCluster(t, append([]string{"--instances=3"}, append(deployedRun, "run")...)...)
	i0 := startPod(t, "instance 0", c.instanceArgs(t, 0))
	i1 := startPod(t, "instance 1", c.instanceArgs(t, 1))
	start := startPod(t, "start", c.startArgs(t))
	start.waitFor(t, "Instances ready: 2 of 3", time.Minute)
	i2 := startPod(t, "instance 2 (late)", c.instanceArgs(t, 2))
	// The merged results file, fetched as the README says.
	start.waitFor(t, "Serving the merged results file at http://"+c.listen+"/results", 2*time.Minute)
	resp, err := http.Get("http://" + c.listen + "/results")
	if err != nil {
		t.Fatal(err)
	}
	fetched, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /results: %v %s", err, resp.Status)
	}
	if code := start.exit(t, time.Minute); code != 0 {
		t.Fatalf("start: exit %d\n%s", code, start.output())
	}
	for _, p := range []*pod{i0, i1, i2} {
		if code := p.exit(t, time.Minute); code != 0 {
			t.Errorf("%s: exit %d\n%s", p.name, code, p.output())
		}
		for _, want := range []string{"Ready: waiting at most 10m0s for the start time", "Serving the results file at /results"} {
			if !strings.Contains(p.output(), want) {
				t.Errorf("%s does not say %q:\n%s", p.name, want, p.output())
			}
		}
	}
	out := start.output()
	for _, want := range []string{"Instances ready: 3 of 3", "Started 3 instances", "Fetched the results of instance 2",
		"Merged 3 results: instance-0, instance-1, instance-2", "Measured windows: starts within", "total number of events:"} {
		if !strings.Contains(out, want) {
			t.Errorf("the start Job's log does not say %q:\n%s", want, out)
		}
	}
	merged := readResults(t, filepath.Join(c.dir, "start-merged.json"))
	if written, _ := os.ReadFile(filepath.Join(c.dir, "start-merged.json")); string(written) != string(fetched) {
		t.Errorf("the merged file served differs from the one written")
	}
	if len(merged.Merged) != 3 || merged.Settings.Threads != 6 || merged.Alignment == nil || merged.Alignment.StartSpreadS > 0.5 {
		t.Errorf("merged: %v threads %d alignment %+v", merged.Merged, merged.Settings.Threads, merged.Alignment)
	}
	var started []string
	for k := range 3 {
		r := readResults(t, filepath.Join(c.dir, fmt.Sprintf("pod-%d-results.json", k)))
		if r.Settings.StartAt == nil || r.Instance == nil || r.Instance.Index != k {
			t.Errorf("instance %d's results: start %v instance %+v", k, r.Settings.StartAt, r.Instance)
			continue
		}
		started = append(started, r.Settings.StartAt.String())
	}
	if len(started) == 3 && (started[0] != started[1] || started[1] != started[2]) {
		t.Errorf("the instances were given different start times: %q", started)
	}
}

// TestKubernetesMissingInstance: with an instance that never comes, the
// start Job gives up after --ready-timeout naming it, and tells the
// waiting instances to give up too: none idles until its own timeout.
func TestKubernetesMissingInstance(t *testing.T) {
	t.Parallel()
	c := renderCluster(t, append([]string{"--instances=3", "--await-start=120"}, append(deployedRun, "run")...)...)
	i0 := startPod(t, "instance 0", c.instanceArgs(t, 0))
	i1 := startPod(t, "instance 1", c.instanceArgs(t, 1))
	began := time.Now()
	start := startPod(t, "start", c.startArgs(t, "--ready-timeout=3"))
	if code := start.exit(t, time.Minute); code != 1 {
		t.Errorf("start: exit %d\n%s", code, start.output())
	}
	want := "FATAL: start: 1 of 3 instances not ready after 3s: instance 2 at http://127.0.0.1:" + c.ports[2] + " ("
	if !strings.Contains(start.output(), want) {
		t.Errorf("the start Job's log does not say %q:\n%s", want, start.output())
	}
	for _, p := range []*pod{i0, i1} {
		if code := p.exit(t, time.Minute); code != 1 || !strings.Contains(p.output(), "FATAL: the start command gave up: 1 of 3 instances not ready") {
			t.Errorf("%s: exit %d\n%s", p.name, code, p.output())
		}
		if strings.Contains(p.output(), "Serving the results") {
			t.Errorf("%s serves results of a run that never began:\n%s", p.name, p.output())
		}
	}
	if d := time.Since(began); d > 60*time.Second {
		t.Errorf("the instances ended %s after the start, not when told to give up (their own --await-start is 120s)", d)
	}
}

// TestKubernetesOnPostgreSQL: the manifests' processes against a real
// server, the password given as the pods get it from the Secret (never on
// the command line): two instances of oltp_point_select, merged.
func TestKubernetesOnPostgreSQL(t *testing.T) {
	t.Parallel()
	srv := testenv.OwnDatabase(t, "pgsql")
	conn := srv.Args()
	common := append([]string{"oltp_point_select", "--tables=1", "--table-size=200"}, conn...)
	if out, code := runCLI(t, append(common, "prepare")...); code != 0 {
		t.Fatalf("prepare: %d\n%s", code, out)
	}
	run := slices.DeleteFunc(slices.Clone(common), func(a string) bool { return strings.HasPrefix(a, "--pgsql-password=") })
	c := renderCluster(t, append(append([]string{"--instances=2"}, run...), "--threads=2", "--rate=200", "--time=2", "run")...)
	if c.passwordEnv != "PGPASSWORD" {
		t.Fatalf("the instances get the password in %q", c.passwordEnv)
	}
	secret := c.passwordEnv + "=" + srv.Password
	pods := []*pod{startPod(t, "instance 0", c.instanceArgs(t, 0), secret), startPod(t, "instance 1", c.instanceArgs(t, 1), secret)}
	start := startPod(t, "start", c.startArgs(t, "--serve-results=0"))
	if code := start.exit(t, 2*time.Minute); code != 0 {
		t.Fatalf("start: exit %d\n%s", code, start.output())
	}
	for _, p := range pods {
		if code := p.exit(t, time.Minute); code != 0 {
			t.Errorf("%s: exit %d\n%s", p.name, code, p.output())
		}
	}
	if out := start.output(); !strings.Contains(out, "Merged 2 results") || !strings.Contains(out, "SQL statistics:") {
		t.Errorf("the start Job's log:\n%s", out)
	}
	m := readResults(t, filepath.Join(c.dir, "start-merged.json"))
	if m.Workload.Driver != "pgsql" || m.Total == nil || m.Exit.Status != 0 {
		t.Errorf("merged: driver %q exit %+v", m.Workload.Driver, m.Exit)
	}
	for _, a := range m.CommandLine {
		if strings.Contains(a, "password") {
			t.Errorf("a password option in the instances' command line: %q", a)
		}
	}
}
