package deploy

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/sysbench-go/sysbench-go/internal/k8stest"
)

// exampleFile is what 'sysbench-go deploy kubernetes' prints for the
// README's example (main's TestDeployExample keeps it up to date).
const exampleFile = "kubernetes/example.yaml"

// The names the manifests and the program agree on.
const (
	indexVar       = "JOB_COMPLETION_INDEX"
	indexFieldPath = "metadata.annotations['batch.kubernetes.io/job-completion-index']"
)

// sample is a run as the deploy command makes one.
func sample() *Kubernetes {
	return &Kubernetes{Name: "sysbench", Image: "registry.example.com/sysbench-go:0.2.0", Instances: 3,
		Args:        []string{"oltp_read_write", "--db-driver=pgsql", "--pgsql-host=pg.db.svc", "--threads=8", "--time=300", "--warmup-time=30"},
		PasswordEnv: "PGPASSWORD", PasswordSecret: "sysbench-db", Port: 9100,
		Warmup: 30 * time.Second, Time: 300 * time.Second, Shutdown: time.Minute,
		AwaitStart: 10 * time.Minute, ServeResults: 10 * time.Minute, CPU: "1", Memory: "1Gi"}
}

func render(t *testing.T, k *Kubernetes) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := k.Render(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decode(t *testing.T, data []byte) *k8stest.Objects {
	t.Helper()
	o, err := k8stest.Decode(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return o
}

// env is a container's environment as the files define it: a value
// when they give one, else where it comes from.
type env map[string]corev1.EnvVar

func containerEnv(ct *corev1.Container) env {
	e := env{}
	for _, v := range ct.Env {
		e[v.Name] = v
	}
	return e
}

// lookup gives a variable's value for Expand: a literal one, else a
// stand-in "{NAME}" (a Secret's key, a pod field).
func (e env) lookup(name string) (string, bool) {
	v, ok := e[name]
	switch {
	case !ok:
		return "", false
	case v.ValueFrom == nil:
		return v.Value, true
	default:
		return "{" + name + "}", true
	}
}

// checker collects the problems of a set of manifests.
type checker struct{ problems []string }

func (c *checker) errorf(format string, args ...any) {
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// options are a command line's --name=value options (several values for
// one given more than once) and its other words.
func options(args []string) (map[string][]string, []string) {
	opts := map[string][]string{}
	var rest []string
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			rest = append(rest, a)
			continue
		}
		name, value, _ := strings.Cut(a[2:], "=")
		opts[name] = append(opts[name], value)
	}
	return opts, rest
}

// one is an option given exactly once.
func (c *checker) one(where string, opts map[string][]string, name string) string {
	if v := opts[name]; len(v) == 1 {
		return v[0]
	}
	c.errorf("%s: --%s= is given %d times, not once", where, name, len(opts[name]))
	return ""
}

// seconds is an option's value in seconds, a problem when it is none.
func (c *checker) seconds(where string, opts map[string][]string, name string) time.Duration {
	v := c.one(where, opts, name)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		c.errorf("%s: --%s=%s is not a number of seconds above 0", where, name, v)
	}
	return time.Duration(n) * time.Second
}

// podChecks are every pod's: never restarted, non-root on a read-only
// root file system with /tmp an emptyDir (restricted Pod Security),
// resources, and $(VAR)s that the environment defines.
func (c *checker) podChecks(job *batchv1.Job) {
	where := "Job " + job.Name
	pod := &job.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		c.errorf("%s: restartPolicy is %q, not Never", where, pod.RestartPolicy)
	}
	if job.Spec.BackoffLimit == nil || *job.Spec.BackoffLimit != 0 {
		c.errorf("%s: backoffLimit is not 0: a retried pod would miss the start", where)
	}
	if job.Spec.ActiveDeadlineSeconds == nil {
		c.errorf("%s: no activeDeadlineSeconds: a pod could idle for ever", where)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		c.errorf("%s: the pod's securityContext does not set runAsNonRoot: true", where)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		c.errorf("%s: the pod's securityContext does not set seccompProfile RuntimeDefault", where)
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) > 0 {
		c.errorf("%s: %d containers and %d init containers, not one container", where, len(pod.Containers), len(pod.InitContainers))
		return
	}
	ct := &pod.Containers[0]
	e := containerEnv(ct)
	for _, a := range ct.Args {
		if _, refs := k8stest.Expand(a, e.lookup); len(refs) > 0 {
			for _, r := range refs {
				if _, ok := e[r]; !ok {
					c.errorf("%s: args: $(%s) is not defined in the container's env", where, r)
				}
			}
		}
	}
	for _, v := range ct.Env {
		if ref := v.ValueFrom; ref != nil && ref.SecretKeyRef != nil && (ref.SecretKeyRef.Optional == nil || !*ref.SecretKeyRef.Optional) {
			c.errorf("%s: env %s: the Secret %s is not optional: a run without a password would not start", where, v.Name, ref.SecretKeyRef.Name)
		}
	}
	sc := ct.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		c.errorf("%s: securityContext does not set readOnlyRootFilesystem: true", where)
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		c.errorf("%s: securityContext does not set allowPrivilegeEscalation: false", where)
	}
	if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		c.errorf("%s: securityContext does not drop ALL capabilities", where)
	}
	if v := volumeAt(pod, ct, "/tmp/x"); v == nil || v.EmptyDir == nil {
		c.errorf("%s: /tmp is not an emptyDir volume (the root file system is read-only)", where)
	}
	if ct.Resources.Requests.Cpu().IsZero() || ct.Resources.Requests.Memory().IsZero() || ct.Resources.Limits.Memory().IsZero() {
		c.errorf("%s: resources: no CPU and memory requests and memory limit", where)
	}
}

// volumeAt is the volume the file p of the container is on, nil for none.
func volumeAt(pod *corev1.PodSpec, ct *corev1.Container, p string) *corev1.Volume {
	best := ""
	var found *corev1.Volume
	for _, vm := range ct.VolumeMounts {
		mp := path.Clean(vm.MountPath)
		if !strings.HasPrefix(path.Clean(p), mp+"/") || len(mp) <= len(best) {
			continue
		}
		for i := range pod.Volumes {
			if pod.Volumes[i].Name == vm.Name {
				best, found = mp, &pod.Volumes[i]
			}
		}
	}
	return found
}

// port is a container's port by name or number, 0 for none.
func port(ct *corev1.Container, p string) int32 {
	for _, cp := range ct.Ports {
		if cp.Name == p || strconv.Itoa(int(cp.ContainerPort)) == p {
			return cp.ContainerPort
		}
	}
	return 0
}

// instanceRE is --instance's value: the pod's index, then N.
var instanceRE = regexp.MustCompile(`^\$\(` + indexVar + `\)/([0-9]+)$`)

// startURLRE is the start command's endpoint template.
var startURLRE = regexp.MustCompile(`^http://([a-z0-9-]+)-\{K\}\.([a-z0-9-]+):([0-9]+)$`)

// run is what the instance Job's command line says of the run.
type run struct {
	n                   int
	await, serve, total time.Duration // total: warm-up and --time
	port                int32
}

// instanceChecks are the instances' Job's.
func (c *checker) instanceChecks(job *batchv1.Job, svc *corev1.Service) run {
	where := "Job " + job.Name
	spec := &job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		c.errorf("%s: completionMode is not Indexed: the pods would have no index", where)
	}
	var r run
	if spec.Completions == nil || spec.Parallelism == nil || *spec.Completions < 1 || *spec.Parallelism != *spec.Completions {
		c.errorf("%s: completions and parallelism must be set and equal: all N instances run at once", where)
	} else {
		r.n = int(*spec.Completions)
	}
	pod := &spec.Template.Spec
	if svc != nil && pod.Subdomain != svc.Name {
		c.errorf("%s: subdomain %q is not the Service %s: the pods would have no DNS name", where, pod.Subdomain, svc.Name)
	}
	ct := &pod.Containers[0]
	if v, ok := containerEnv(ct)[indexVar]; !ok || v.ValueFrom == nil || v.ValueFrom.FieldRef == nil || v.ValueFrom.FieldRef.FieldPath != indexFieldPath {
		c.errorf("%s: env %s is not defined by a fieldRef to %s", where, indexVar, indexFieldPath)
	}
	opts, rest := options(ct.Args)
	if len(rest) != 2 || rest[1] != "run" {
		c.errorf("%s: args are not TESTNAME [options] run: %q", where, rest)
	}
	if m := instanceRE.FindStringSubmatch(c.one(where, opts, "instance")); m == nil {
		c.errorf("%s: --instance is not $(%s)/N", where, indexVar)
	} else if n, _ := strconv.Atoi(m[1]); n != r.n {
		c.errorf("%s: --instance=$(%s)/%d but completions is %d", where, indexVar, n, r.n)
	}
	r.await = c.seconds(where, opts, "await-start")
	r.serve = c.seconds(where, opts, "serve-results")
	if res := c.one(where, opts, "results"); volumeAt(pod, ct, res) == nil {
		c.errorf("%s: --results=%s is on no volume: the root file system is read-only", where, res)
	}
	addr := c.one(where, opts, "metrics-addr")
	p, _ := strconv.Atoi(strings.TrimPrefix(addr, ":"))
	r.port = int32(p)
	if !strings.HasPrefix(addr, ":") || port(ct, strconv.Itoa(p)) == 0 {
		c.errorf("%s: --metrics-addr=%s is not :PORT of a containerPort", where, addr)
	}
	ann := spec.Template.Annotations
	if ann["prometheus.io/scrape"] != "true" || ann["prometheus.io/port"] != strconv.Itoa(p) || ann["prometheus.io/path"] != "/metrics" {
		c.errorf("%s: the prometheus.io annotations %v do not announce --metrics-addr=%s's /metrics", where, ann, addr)
	}
	if rp := ct.ReadinessProbe; rp == nil || rp.HTTPGet == nil || rp.HTTPGet.Path != "/ready" || port(ct, rp.HTTPGet.Port.String()) != r.port {
		c.errorf("%s: the readiness probe is not GET /ready on --metrics-addr's port", where)
	}
	for _, name := range []string{"time", "warmup-time"} {
		if v := opts[name]; len(v) == 1 {
			n, _ := strconv.Atoi(v[0])
			r.total += time.Duration(n) * time.Second
		}
	}
	if len(opts["time"]) != 1 {
		c.errorf("%s: no --time: the deadline comes from it", where)
	}
	if d := spec.ActiveDeadlineSeconds; d != nil && time.Duration(*d)*time.Second < r.await+r.total+r.serve {
		c.errorf("%s: activeDeadlineSeconds %d is shorter than waiting (%s), running (%s) and serving the results (%s)", where, *d, r.await, r.total, r.serve)
	}
	if len(rest) > 0 && path.IsAbs(rest[0]) {
		c.scriptCheck(where, pod, ct, rest[0])
	}
	return r
}

// scriptCheck: a script given by its path is a key of a mounted ConfigMap
// of the manifests.
func (c *checker) scriptCheck(where string, pod *corev1.PodSpec, ct *corev1.Container, p string) {
	v := volumeAt(pod, ct, p)
	if v == nil || v.ConfigMap == nil {
		c.errorf("%s: the script %s is not on a ConfigMap volume", where, p)
	}
}

// serviceChecks: headless, its DNS names there before the pods are ready,
// selecting the instances and not the start Job's pod.
func (c *checker) serviceChecks(svc *corev1.Service, instances, start *batchv1.Job, r run) {
	where := "Service " + svc.Name
	if svc.Spec.ClusterIP != corev1.ClusterIPNone {
		c.errorf("%s: clusterIP is %q, not None (headless)", where, svc.Spec.ClusterIP)
	}
	if !svc.Spec.PublishNotReadyAddresses {
		c.errorf("%s: publishNotReadyAddresses is false: the start Job could not reach an instance before it is ready", where)
	}
	selects := func(labels map[string]string) bool {
		for k, v := range svc.Spec.Selector {
			if labels[k] != v {
				return false
			}
		}
		return len(svc.Spec.Selector) > 0
	}
	if !selects(instances.Spec.Template.Labels) {
		c.errorf("%s: selector %v does not select the instances' pods %v", where, svc.Spec.Selector, instances.Spec.Template.Labels)
	}
	if start != nil && selects(start.Spec.Template.Labels) {
		c.errorf("%s: selector %v selects the start Job's pod too", where, svc.Spec.Selector)
	}
	ct := &instances.Spec.Template.Spec.Containers[0]
	for _, p := range svc.Spec.Ports {
		if port(ct, p.TargetPort.String()) != r.port {
			c.errorf("%s: port %s: targetPort %s is not the instances' port %d", where, p.Name, p.TargetPort.String(), r.port)
		}
	}
}

// startChecks are the start Job's: it reaches every instance by its DNS
// name, waits as long as they do, and its deadline covers the run.
func (c *checker) startChecks(job *batchv1.Job, instances *batchv1.Job, svc *corev1.Service, r run) {
	where := "Job " + job.Name
	ct := &job.Spec.Template.Spec.Containers[0]
	if img := instances.Spec.Template.Spec.Containers[0].Image; ct.Image != img {
		c.errorf("%s: image %q is not the instances' %q", where, ct.Image, img)
	}
	opts, rest := options(ct.Args)
	if len(rest) != 2 || rest[0] != "start" {
		c.errorf("%s: args are not start [options] URL: %q", where, ct.Args)
		return
	}
	if n := c.one(where, opts, "instances"); n != strconv.Itoa(r.n) {
		c.errorf("%s: --instances=%s but the instances are %d", where, n, r.n)
	}
	m := startURLRE.FindStringSubmatch(rest[1])
	switch {
	case m == nil:
		c.errorf("%s: %s is not http://JOB-{K}.SERVICE:PORT", where, rest[1])
	case m[1] != instances.Name:
		c.errorf("%s: %s: the instances' hostnames are %s-K, not %s-K", where, rest[1], instances.Name, m[1])
	case svc == nil || m[2] != svc.Name:
		c.errorf("%s: %s: the instances' subdomain is their Service's name, not %s", where, rest[1], m[2])
	case m[3] != strconv.Itoa(int(r.port)):
		c.errorf("%s: %s: the instances' port is %d, not %s", where, rest[1], r.port, m[3])
	}
	ready := c.seconds(where, opts, "ready-timeout")
	if ready != r.await {
		c.errorf("%s: --ready-timeout=%s but the instances wait --await-start=%s", where, ready, r.await)
	}
	delay, timeout, serve := c.seconds(where, opts, "start-delay"), c.seconds(where, opts, "timeout"), c.seconds(where, opts, "serve-results")
	if timeout < r.total {
		c.errorf("%s: --timeout=%s is shorter than the run (%s)", where, timeout, r.total)
	}
	if listen := c.one(where, opts, "listen"); port(ct, strings.TrimPrefix(listen, ":")) == 0 {
		c.errorf("%s: --listen=%s is not :PORT of a containerPort", where, listen)
	}
	if res := c.one(where, opts, "results"); volumeAt(&job.Spec.Template.Spec, ct, res) == nil {
		c.errorf("%s: --results=%s is on no volume: the root file system is read-only", where, res)
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil && time.Duration(*d)*time.Second < ready+delay+timeout+serve {
		c.errorf("%s: activeDeadlineSeconds %d is shorter than waiting, running and serving (%s)", where, *d, ready+delay+timeout+serve)
	}
}

// check returns every problem of a distributed run's manifests, in words.
func check(o *k8stest.Objects) []string {
	c := &checker{}
	var instances, start *batchv1.Job
	for _, j := range o.Jobs {
		c.podChecks(j)
		switch {
		case j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion:
			instances = j
		case len(j.Spec.Template.Spec.Containers) == 1 && slices.Contains(j.Spec.Template.Spec.Containers[0].Args, "start"):
			start = j
		default:
			c.errorf("Job %s: neither the instances (Indexed) nor the start Job", j.Name)
		}
	}
	var svc *corev1.Service
	for _, s := range o.Services {
		svc = s
	}
	switch {
	case len(o.Jobs) != 2 || instances == nil || start == nil:
		c.errorf("not the instances' Job and the start Job: %v", o.Order)
		return c.problems
	case len(o.Services) != 1:
		c.errorf("%d Services, not the instances' one", len(o.Services))
	case len(o.Secrets) > 0:
		c.errorf("a Secret in the manifests: the password would be written there")
	}
	if len(c.problems) > 0 {
		return c.problems // the pods are not what the rest expects
	}
	r := c.instanceChecks(instances, svc)
	if svc != nil {
		c.serviceChecks(svc, instances, start, r)
	}
	c.startChecks(start, instances, svc, r)
	return c.problems
}

// TestRender renders runs of several shapes; each decodes strictly and
// passes the checks, with the settings it was made from.
func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(k *Kubernetes)
	}{
		{"as the README's", func(*Kubernetes) {}},
		{"one instance", func(k *Kubernetes) { k.Instances = 1 }},
		{"sixteen instances, mysql, another name", func(k *Kubernetes) {
			k.Instances, k.Name, k.PasswordEnv = 16, "tpcc-b", "MYSQL_PWD"
			k.Args = []string{"oltp_point_select", "--mysql-host=db", "--time=60"}
		}},
		{"no password", func(k *Kubernetes) { k.PasswordEnv = "" }},
		{"a script of the user's", func(k *Kubernetes) {
			k.Script = &Script{File: "my.lua", Content: "function event()\nend\n"}
			k.Args[0] = k.ScriptPath()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := sample()
			tc.edit(k)
			o := decode(t, render(t, k))
			for _, p := range check(o) {
				t.Error(p)
			}
			job, start := o.Jobs[k.Name], o.Jobs[k.Name+"-start"]
			if job == nil || start == nil || o.Services[k.Name] == nil {
				t.Fatalf("objects %v", o.Order)
			}
			if int(*job.Spec.Completions) != k.Instances || *job.Spec.ActiveDeadlineSeconds != int64(k.InstanceDeadline()/time.Second) ||
				*start.Spec.ActiveDeadlineSeconds != int64(k.StartDeadline()/time.Second) {
				t.Errorf("instances %d, deadlines %d %d", *job.Spec.Completions, *job.Spec.ActiveDeadlineSeconds, *start.Spec.ActiveDeadlineSeconds)
			}
			ct := k8stest.Container(job, "sysbench-go")
			if ct == nil || ct.Image != k.Image || !slices.Equal(ct.Args[:len(k.Args)], k.Args) {
				t.Errorf("container %+v", ct)
			}
			pw, ok := containerEnv(ct)[k.PasswordEnv]
			if k.PasswordEnv != "" && (!ok || pw.ValueFrom.SecretKeyRef.Name != k.PasswordSecret || pw.ValueFrom.SecretKeyRef.Key != "password") {
				t.Errorf("password env %s: %+v", k.PasswordEnv, pw)
			}
			if k.Script != nil {
				cm := o.ConfigMaps[k.Name+"-script"]
				if cm == nil || cm.Data[k.Script.File] != k.Script.Content {
					t.Errorf("script ConfigMap %+v", cm)
				}
			} else if len(o.ConfigMaps) > 0 {
				t.Errorf("a ConfigMap without a script: %v", o.Order)
			}
		})
	}
}

// TestScriptContent: a script reaches the pods byte for byte, whatever
// its first line's indentation, its last newlines or its characters.
func TestScriptContent(t *testing.T) {
	for _, content := range []string{
		"print(1)\n",
		"print(1)",
		"  -- indented first line\nprint(1)\n",
		"print(1)\n\n\n",
		"\tlocal x = 1\n\n\tprint(x)\n",
		"-- key: value # not a comment\nlocal s = \"a: b\" -- |\n",
		"print('crlf')\r\nprint(2)\r\n",
		"print('\x01 control')\n",
		"print('ünïcode — ok')\n",
		"\n\nprint(1)\n",
	} {
		k := sample()
		k.Script = &Script{File: "s.lua", Content: content}
		k.Args[0] = k.ScriptPath()
		o := decode(t, render(t, k))
		if got := o.ConfigMaps["sysbench-script"].Data["s.lua"]; got != content {
			t.Errorf("script %q came back as %q", content, got)
		}
	}
}

// TestArgsAsGiven: the run's arguments reach the program as given, after
// YAML and Kubernetes' $(VAR) expansion, whatever they look like.
func TestArgsAsGiven(t *testing.T) {
	args := []string{"oltp_read_write", "--mysql-host=a:b", "--x=yes", "--y=on", "1.5", "null", "--z=$(HOME)", "--w=$$",
		"--q=it's \"quoted\"", "--c=# not a comment", "--s=a: b", "--u=ünï", "--e=", "-", "--l=a,b,c"}
	k := sample()
	k.Args = append([]string(nil), args...)
	o := decode(t, render(t, k))
	ct := k8stest.Container(o.Jobs["sysbench"], "sysbench-go")
	e := containerEnv(ct)
	for i, a := range args {
		got, _ := k8stest.Expand(ct.Args[i], e.lookup)
		if got != a {
			t.Errorf("arg %q reaches the program as %q (in the manifest: %q)", a, got, ct.Args[i])
		}
	}
}

// TestCheckRefuses: settings that would make broken manifests.
func TestCheckRefuses(t *testing.T) {
	for _, tc := range []struct {
		edit func(k *Kubernetes)
		want string
	}{
		{func(k *Kubernetes) { k.Instances = 0 }, "--instances=N is needed"},
		{func(k *Kubernetes) { k.Time = 0 }, "--time must be more than 0"},
		{func(k *Kubernetes) { k.Name = "Sysbench" }, "--name=Sysbench"},
		{func(k *Kubernetes) { k.Name = strings.Repeat("a", 41) }, "at most 40"},
		{func(k *Kubernetes) { k.Image = "" }, "no image"},
		{func(k *Kubernetes) { k.Args = nil }, "no test"},
	} {
		k := sample()
		tc.edit(k)
		if err := k.Render(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Render = %v, want %q", err, tc.want)
		}
	}
}

// TestExample: the example in the repository decodes strictly and passes
// the checks.
func TestExample(t *testing.T) {
	data, err := os.ReadFile(exampleFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range check(decode(t, data)) {
		t.Error(p)
	}
}

// replaceOnce replaces old, which must occur exactly once, so that a
// mutation cannot silently miss after a change of the template.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("%q occurs %d times, not once", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

// TestStrictDecoding: the decoder refuses what Kubernetes would refuse or
// silently drop.
func TestStrictDecoding(t *testing.T) {
	manifests := string(render(t, sample()))
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"misspelt spec field", "  completions: 3", "  completionz: 3", `unknown field "spec.completionz"`},
		{"misspelt container field", "containerPort: 9100\n              protocol: TCP\n          # Ready", "containerport: 9100\n              protocol: TCP\n          # Ready", `unknown field "spec.template.spec.containers[0].ports[0].containerport"`},
		{"misspelt metadata field", "      annotations:", "      anotations:", `unknown field "spec.template.metadata.anotations"`},
		{"wrong type", "  completions: 3", "  completions: three", "completions"},
		{"number for a string", `prometheus.io/port: "9100"`, "prometheus.io/port: 9100", "annotations"},
		{"duplicate key", "  parallelism: 3", "  parallelism: 3\n  parallelism: 4", "parallelism"},
		{"case only", "  completionMode: Indexed", "  completionmode: Indexed", `unknown field "spec.completionmode"`},
		{"unknown kind", "kind: Service", "kind: Services", `kind "Services"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := k8stest.Decode([]byte(replaceOnce(t, manifests, tc.old, tc.new)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v does not say %q", err, tc.want)
			}
		})
	}
}

// TestChecksCatchMistakes makes one mistake at a time in rendered
// manifests and expects check to name it: each check can fail.
func TestChecksCatchMistakes(t *testing.T) {
	manifests := string(render(t, sample()))
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"parallelism differs", "parallelism: 3", "parallelism: 4", "completions and parallelism must be set and equal"},
		{"N of --instance differs", "--instance=$(JOB_COMPLETION_INDEX)/3", "--instance=$(JOB_COMPLETION_INDEX)/4", "--instance=$(JOB_COMPLETION_INDEX)/4 but completions is 3"},
		{"start's N differs", "- --instances=3", "- --instances=4", "--instances=4 but the instances are 3"},
		{"not Indexed", "completionMode: Indexed", "completionMode: NonIndexed", "neither the instances"},
		{"retries", "backoffLimit: 0\n  activeDeadlineSeconds: 1745", "backoffLimit: 2\n  activeDeadlineSeconds: 1745", "backoffLimit is not 0"},
		{"index from a label", "metadata.annotations['batch.kubernetes.io/job-completion-index']", "metadata.labels['batch.kubernetes.io/job-completion-index']", "env JOB_COMPLETION_INDEX is not defined by a fieldRef"},
		{"index env renamed", "- name: JOB_COMPLETION_INDEX", "- name: COMPLETION_INDEX", "$(JOB_COMPLETION_INDEX) is not defined"},
		{"no subdomain", "      subdomain: sysbench\n", "", "subdomain \"\" is not the Service sysbench"},
		{"not headless", "clusterIP: None", "clusterIP: \"\"", "not None"},
		{"DNS only when ready", "publishNotReadyAddresses: true", "publishNotReadyAddresses: false", "publishNotReadyAddresses is false"},
		{"service selects the start Job", "    app.kubernetes.io/component: instance\n  ports:", "    app.kubernetes.io/component: start\n  ports:", "does not select the instances' pods"},
		{"start reaches another host", "http://sysbench-{K}.sysbench:9100", "http://sysbench-{K}.other:9100", "subdomain is their Service's name, not other"},
		{"start reaches another port", "http://sysbench-{K}.sysbench:9100", "http://sysbench-{K}.sysbench:9200", "port is 9100, not 9200"},
		{"start waits less than the instances", "--ready-timeout=600", "--ready-timeout=60", "--ready-timeout=1m0s but the instances wait --await-start=10m0s"},
		{"deadline too short", "activeDeadlineSeconds: 1745", "activeDeadlineSeconds: 600", "activeDeadlineSeconds 600 is shorter"},
		{"no deadline", "  activeDeadlineSeconds: 1745\n", "", "no activeDeadlineSeconds"},
		{"password Secret required", "                  optional: true\n", "", "is not optional"},
		{"results on the read-only root", "--results=/tmp/results.json", "--results=/var/results.json", "is on no volume"},
		{"metrics port not the container's", "--metrics-addr=:9100", "--metrics-addr=:9101", "--metrics-addr=:9101 is not :PORT of a containerPort"},
		{"probe elsewhere", "path: /ready", "path: /metrics", "readiness probe"},
		{"scrape off", `prometheus.io/scrape: "true"`, `prometheus.io/scrape: "false"`, "prometheus.io annotations"},
		{"writable root", "readOnlyRootFilesystem: true\n            capabilities:\n              drop:\n                - ALL\n          volumeMounts:\n            # The results", "readOnlyRootFilesystem: false\n            capabilities:\n              drop:\n                - ALL\n          volumeMounts:\n            # The results", "readOnlyRootFilesystem"},
		{"root allowed", "runAsNonRoot: true\n        runAsUser: 65532\n        runAsGroup: 65532\n        seccompProfile:\n          type: RuntimeDefault\n      containers:\n        - name: start", "runAsNonRoot: false\n        runAsUser: 65532\n        runAsGroup: 65532\n        seccompProfile:\n          type: RuntimeDefault\n      containers:\n        - name: start", "runAsNonRoot"},
		{"start image differs", "image: \"registry.example.com/sysbench-go:0.2.0\"\n          imagePullPolicy: IfNotPresent\n          args:\n            - start", "image: \"registry.example.com/sysbench-go:0.1.0\"\n          imagePullPolicy: IfNotPresent\n          args:\n            - start", "is not the instances'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := k8stest.Decode([]byte(replaceOnce(t, manifests, tc.old, tc.new)))
			if err != nil {
				t.Fatalf("the mutation does not decode: %v", err)
			}
			problems := check(o)
			for _, p := range problems {
				if strings.Contains(p, tc.want) {
					t.Logf("caught: %s", p)
					return
				}
			}
			t.Errorf("no problem says %q; the problems:\n%s", tc.want, strings.Join(problems, "\n"))
		})
	}
}
