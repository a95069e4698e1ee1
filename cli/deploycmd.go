package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sysbench-go/sysbench-go/deploy"
	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/options"
)

// deployOptions are the deploy command's own options; the others belong
// to the run.
var deployOptions = []options.Option{
	{Name: "instances", Desc: "the number of instances N (each runs --threads threads)", Kind: options.Int, Default: "0"},
	{Name: "image", Desc: "the container image of sysbench-go (the Dockerfile's), as the cluster pulls it", Kind: options.String, Default: "sysbench-go:latest"},
	{Name: "name", Desc: "the name of the Service and Jobs (NAME, NAME-start): runs at once in one namespace need names of their own", Kind: options.String, Default: "sysbench"},
	{Name: "password-secret", Desc: "the Secret whose key 'password' is the database password, given to the instances as PGPASSWORD or MYSQL_PWD (none needed when the database takes no password)", Kind: options.String, Default: "sysbench-db"},
	{Name: "cpu", Desc: "each instance's CPU request", Kind: options.String, Default: "1"},
	{Name: "memory", Desc: "each instance's memory request and limit", Kind: options.String, Default: "1Gi"},
	{Name: "await-start", Desc: "how long the instances and the start Job wait for every instance to be ready, in seconds", Kind: options.Int, Default: "600"},
	{Name: "serve-results", Desc: "how long the instances keep their results for the merge, and the start Job the merged file, in seconds", Kind: options.Int, Default: "600"},
	{Name: "port", Desc: "the instances' HTTP port: metrics, start, results", Kind: options.Int, Default: "9100"},
	{Name: "help", Desc: "print this help and exit", Kind: options.Bool, Default: "off"},
}

// reservedRunOptions are set by the manifests themselves.
var reservedRunOptions = []string{"instance", "start-at", "await-start", "serve-results", "metrics-addr", "results"}

// deployCommand is 'sysbench-go deploy kubernetes --instances=N [options]
// TESTNAME [options] run': it checks the run's command line as a run would
// and prints the manifests of the distributed run.
func (p *program) deployCommand(args []string) int {
	if len(args) == 0 {
		printDeployHelp(p.stderr, p.name()) // a usage error, not the output asked for
		return 1
	}
	if args[0] == "--help" || args[0] == "help" {
		printDeployHelp(p.log.Out(), p.name())
		return 0
	}
	if args[0] != "kubernetes" {
		return p.fail(fmt.Errorf("deploy: '%s': the only target is kubernetes (%s deploy kubernetes --instances=N ...)", args[0], p.name()))
	}
	own, run := splitDeployArgs(args[1:])
	values, _, ok := p.commandArgs(deployOptions, own)
	if !ok {
		return 1
	}
	if values.Bool("help") {
		printDeployHelp(p.log.Out(), p.name())
		return 0
	}
	k, err := p.kubernetesRun(values, run)
	if err == nil {
		err = k.Check()
	}
	if err != nil {
		return p.fail(fmt.Errorf("deploy: %w", err))
	}
	if err := k.Render(p.log.Out()); err != nil {
		return p.fail(fmt.Errorf("deploy: %w", err))
	}
	return 0
}

// splitDeployArgs separates the deploy options from the run's arguments.
func splitDeployArgs(args []string) (own, run []string) {
	for _, a := range args {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && optionNamed(deployOptions, name) {
			own = append(own, a)
		} else {
			run = append(run, a)
		}
	}
	return own, run
}

func optionNamed(opts []options.Option, name string) bool {
	for _, o := range opts {
		if options.Canonical(o.Name) == options.Canonical(name) {
			return true
		}
	}
	return false
}

// kubernetesRun checks the run's command line as `run` would read it
// (options, their values, the test's own) and makes the run's settings.
func (p *program) kubernetesRun(values *options.Values, run []string) (*deploy.Kubernetes, error) {
	cl, err := parseArgs(run)
	if err != nil {
		return nil, err
	}
	if cl.command == "capacity" {
		return nil, errors.New("the capacity command runs in one process, not as instances (docs/capacity.md): run it in one pod, or deploy a run at a fixed --rate for each rate to check")
	}
	if cl.testname == "" || cl.command != "run" {
		return nil, errors.New("the run's command line must be TESTNAME [options] run")
	}
	for _, o := range cl.opts {
		name := options.Canonical(o[0])
		switch {
		case slices.Contains(reservedRunOptions, o[0]) || slices.Contains(reservedRunOptions, strings.ReplaceAll(o[0], "_", "-")):
			return nil, fmt.Errorf("--%s is set by the manifests", o[0])
		case name == "config_file":
			return nil, errors.New("--config-file: the file is not in the pods; give its options on the command line")
		case strings.HasSuffix(name, "_password"):
			return nil, fmt.Errorf("--%s would be written in the manifests: put the password in a Secret (kubectl create secret generic %s --from-literal=password='...')", o[0], values.String("password-secret"))
		}
	}
	// Their errors are printed as a run prints them.
	spec, err := readSpec(cl, run, allDeclared(p.drivers, p.tests), p.stderr)
	if err != nil {
		p.fail(err)
		return nil, engine.Quiet(errors.New("invalid run options"))
	}
	if !p.resolve(spec) {
		return nil, engine.Quiet(errors.New("invalid run options"))
	}
	k := &deploy.Kubernetes{Name: values.String("name"), Image: values.String("image"),
		PasswordSecret: values.String("password-secret"), CPU: values.String("cpu"), Memory: values.String("memory"),
		Time: spec.cfg.Time, Warmup: spec.cfg.Warmup, Shutdown: time.Minute}
	if spec.cfg.ForcedShutdown >= 0 {
		k.Shutdown = spec.cfg.ForcedShutdown
	}
	for _, o := range []struct {
		name string
		dst  *int
	}{{"instances", &k.Instances}, {"port", &k.Port}} {
		n, err := values.Int(o.name)
		if err != nil || n < 0 || (o.name == "port" && (n < 1 || n > 65535)) {
			return nil, fmt.Errorf("invalid value for --%s: '%s'", o.name, values.String(o.name))
		}
		*o.dst = int(n)
	}
	if k.AwaitStart, err = secondsOpt(values, "await-start", 1); err != nil {
		return nil, err
	}
	if k.ServeResults, err = secondsOpt(values, "serve-results", 1); err != nil {
		return nil, err
	}
	switch spec.values.String("db-driver") {
	case "pgsql":
		k.PasswordEnv = "PGPASSWORD"
	case "mysql":
		k.PasswordEnv = "MYSQL_PWD"
	}
	if err := p.checkTestOptions(spec, cl.testname); err != nil {
		return nil, err
	}
	k.Args = withoutCommand(run)
	if !bundledScript(cl.testname) && !p.builtinTest(cl.testname) {
		content, err := os.ReadFile(cl.testname)
		if err != nil {
			return nil, fmt.Errorf("'%s' is not a bundled workload, a built-in test or a script file", cl.testname)
		}
		k.Script = &deploy.Script{File: filepath.Base(cl.testname), Content: string(content)}
		for i, a := range k.Args {
			if a == cl.testname {
				k.Args[i] = k.ScriptPath()
				break
			}
		}
	}
	return k, nil
}

// checkTestOptions refuses options the test does not take, as a run
// would once the test is loaded.
func (p *program) checkTestOptions(spec *runSpec, testname string) error {
	t, err := p.loadTest(spec.cl.format(), testname, readBudget)
	if err != nil {
		return fmt.Errorf("%s: %v", testname, err)
	}
	if !t.declared && !t.builtin {
		return nil // options of a script that declares none are its globals
	}
	for _, g := range spec.pending {
		if !optionNamed(t.options, g.name) {
			return fmt.Errorf("invalid option: %s", g.raw)
		}
	}
	return nil
}

// withoutCommand is a command line without its command: the second word
// that is not an option.
func withoutCommand(args []string) []string {
	var out []string
	words := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "--") {
			if words++; words == 2 {
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func (p *program) builtinTest(name string) bool {
	for _, t := range p.tests {
		if t.Name == name {
			return true
		}
	}
	return false
}

func printDeployHelp(out io.Writer, prog string) {
	fmt.Fprintf(out, "Usage:\n  %[1]s deploy kubernetes --instances=N [options]... TESTNAME [options]... run > run.yaml\n\n", prog)
	fmt.Fprintf(out, "Prints the Kubernetes manifests of a distributed run: N instances of the run given, each\n--instance=K/N, started together by a start Job that then merges their results and prints the\nreport in its log. kubectl apply -f run.yaml; kubectl logs -f job/NAME-start (docs/distributed.md).\nThe run's command line is checked as a run would read it; a script file is put in a ConfigMap.\n\n")
	fmt.Fprintf(out, "deploy options:\n%s\n", options.FormatHelp(deployOptions))
}
