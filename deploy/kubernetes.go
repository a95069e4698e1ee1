package deploy

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/template"
	"time"
)

// Kubernetes is a distributed run as Kubernetes runs it.
type Kubernetes struct {
	// Name names the objects (the Service, the Job NAME of the
	// instances, the Job NAME-start) and labels them.
	Name      string
	Image     string
	Instances int
	// Args is the instances' command line without its command (run) and
	// the options the manifests add (--instance and the endpoint's): the
	// test and its options.
	Args []string
	// PasswordEnv is the variable the driver reads its password from
	// (PGPASSWORD, MYSQL_PWD; "" for none), given from key "password" of
	// the Secret PasswordSecret when that exists.
	PasswordEnv, PasswordSecret string
	// Script is a script file of the user's, mounted for the instances
	// (nil: a bundled workload or built-in test).
	Script *Script
	// Port is the instances' endpoint (metrics, start, results).
	Port int
	// Warmup and Time are the run's --warmup-time and --time; Shutdown
	// what it may take after Time to stop (--forced-shutdown, or a
	// margin).
	Warmup, Time, Shutdown time.Duration
	// AwaitStart is how long the instances wait for every one to be
	// ready; ServeResults how long they keep their results for the merge.
	AwaitStart, ServeResults time.Duration
	// CPU and Memory are each instance's requests (Memory its limit too).
	CPU, Memory string
}

// Script is a user's script file.
type Script struct {
	File    string // its base name
	Content string
}

// scriptDir is where the instances see a user's script.
const scriptDir = "/etc/sysbench-go"

// StartDelay is how long after the last instance is ready the measured
// windows begin: the warm-up, and time for the start to reach every one.
func (k *Kubernetes) StartDelay() time.Duration { return k.Warmup + 5*time.Second }

// margin is the slack of the Jobs' deadlines over the run's own timing:
// scheduling, pulling the image, connecting.
const margin = 2 * time.Minute

// RunTime is the longest the run can take from its start: warm-up, the
// measured window and stopping.
func (k *Kubernetes) RunTime() time.Duration { return k.Warmup + k.Time + k.Shutdown }

// InstanceDeadline bounds the instances' Job (activeDeadlineSeconds):
// waiting to start, running, serving the results.
func (k *Kubernetes) InstanceDeadline() time.Duration {
	return k.AwaitStart + k.StartDelay() + k.RunTime() + k.ServeResults + margin
}

// CollectTimeout is how long after the start the start command waits for
// the results: the run, and a minute to write and serve them.
func (k *Kubernetes) CollectTimeout() time.Duration { return k.RunTime() + time.Minute }

// StartDeadline bounds the start Job: waiting for the instances, the run,
// the merge and serving the merged file.
func (k *Kubernetes) StartDeadline() time.Duration {
	return k.AwaitStart + k.StartDelay() + k.CollectTimeout() + k.ServeResults + margin
}

// nameRE is what Name may be: a DNS label short enough for "-start" and
// the pods' "-K" after it.
var nameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// Check says what is wrong with the settings, nil when nothing.
func (k *Kubernetes) Check() error {
	switch {
	case !nameRE.MatchString(k.Name):
		return fmt.Errorf("--name=%s: lower-case letters, digits and '-', a letter first, at most 40", k.Name)
	case k.Instances < 1:
		return fmt.Errorf("--instances=N is needed: N ≥ 1")
	case k.Image == "":
		return fmt.Errorf("--image: no image")
	case k.Time <= 0:
		return fmt.Errorf("--time must be more than 0: the Jobs' deadlines come from it")
	case len(k.Args) == 0:
		return fmt.Errorf("no test to run")
	}
	return nil
}

//go:embed kubernetes/run.yaml.tmpl
var runTemplate string

var tmpl = template.Must(template.New("run.yaml").Funcs(template.FuncMap{
	"quote":   quote,
	"arg":     func(s string) string { return scalar(escapeVars(s)) },
	"seconds": func(d time.Duration) int64 { return int64(d.Round(time.Second) / time.Second) },
	"literal": literal,
}).Parse(runTemplate))

// Render writes the manifests, one YAML stream.
func (k *Kubernetes) Render(w io.Writer) error {
	if err := k.Check(); err != nil {
		return err
	}
	return tmpl.Execute(w, k)
}

// quote is s as a YAML double-quoted scalar (JSON's quoting is YAML's).
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// plainRE is what a YAML plain scalar may be here without a doubt about
// its type or its end: an option, or a word or path.
var plainRE = regexp.MustCompile(`^(--[A-Za-z0-9][A-Za-z0-9_./=,%@+:-]*|[A-Za-z_/.][A-Za-z0-9_./-]*)$`)

// scalar is s as a YAML string: plain when that cannot be read as
// another type (yes, null, 1.5), else quoted.
func scalar(s string) string {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return quote(s)
	}
	if plainRE.MatchString(s) {
		return s
	}
	return quote(s)
}

// escapeVars keeps Kubernetes from expanding $(NAME) in a user's
// argument: "$$" is its escape for "$".
func escapeVars(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// literal is s as a YAML literal block scalar indented by indent spaces
// (for a script in a ConfigMap), or quoted when it has characters a block
// cannot hold.
func literal(indent int, s string) string {
	for _, r := range s {
		if r != '\t' && r != '\n' && (r < ' ' || r == 0x7f || r == 0xfeff || r == '\u2028' || r == '\u2029' || r == 0x85) {
			return quote(s)
		}
	}
	if strings.Contains(s, "\r") || s == "" {
		return quote(s)
	}
	chomp := "-"
	switch {
	case strings.HasSuffix(s, "\n\n"):
		chomp = "+"
	case strings.HasSuffix(s, "\n"):
		chomp = ""
	}
	pad := strings.Repeat(" ", indent)
	var b strings.Builder
	// The explicit indentation: a first line that begins with blanks
	// would set it otherwise.
	fmt.Fprintf(&b, "|2%s\n", chomp)
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if chomp == "+" {
		lines = strings.Split(s[:len(s)-1], "\n")
	}
	for i, l := range lines {
		if l != "" {
			b.WriteString(pad + l)
		}
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// ScriptPath is where the instances see the user's script.
func (k *Kubernetes) ScriptPath() string {
	if k.Script == nil {
		return ""
	}
	return scriptDir + "/" + k.Script.File
}

// ScriptDir is where the instances see a user's script, for the template.
func (k *Kubernetes) ScriptDir() string { return scriptDir }
