package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// installedAs puts the program on a PATH of its own under name (as make
// install does) and returns that directory.
func installedAs(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Symlink(testenv.Binary(t), filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// completionCases are command lines, the cursor at their end, and what
// completion offers there (as the shell shows it: after an '=', what
// follows it).
var completionCases = []struct{ line, want string }{
	{"PROG --thr", "--threads= --thread-stack-size= --threshold="},
	{"PROG --mysql-ho", "--mysql-host="},
	{"PROG --pgsql-ssl", "--pgsql-sslmode="},
	{"PROG oltp_read_w", "oltp_read_write"},
	{"PROG tpcb", "tpcb_like tpcb_select_only tpcb_simple_update"},
	{"PROG cp", "cpu"},
	{"PROG rep", "report"},
	{"PROG --table-s", ""}, // a workload's option before its name is on the line
	{"PROG oltp_read_write --table-s", "--table-size="},
	{"PROG oltp_read_write --table_s", "--table_size="},
	{"PROG --threads=4 oltp_point_select --skip-t", "--skip-trx"},
	{"PROG oltp_point_select --skip-trx=", "on off"},
	{"PROG oltp_read_write r", "run"},
	{"PROG oltp_read_write p", "prepare prewarm"},
	{"PROG cpu --cpu-max", "--cpu-max-prime="},
	{"PROG --db-driver=p", "pgsql"},
	{"PROG --rand-type=", "uniform gaussian special pareto zipfian"},
	{"PROG --db-ps-mode=", "auto disable"},
	{"PROG --histogram=o", "on off"},
	{"PROG report --perc", "--percentile="},
	{"PROG deploy ", "kubernetes"},
	{"PROG deploy kubernetes --inst", "--instances="},
	{"PROG deploy kubernetes shop_mixed --sc", "--scale="},
	{"PROG completion ", "bash zsh"},
	{"PROG start --ready", "--ready-timeout="},
	{"PROG --config-file=FILES/sc", "FILES/script.lua"},
	{"PROG FILES/sc", "FILES/script.lua"},
	{"PROG FILES/script.lua --my-o", "--my-option="},
}

// TestBashCompletion sources the completion script that the program
// prints, as bash-completion would, and asks it to complete each case.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bin := installedAs(t, "sysbench-go", "sysbench")
	files := t.TempDir()
	if err := os.WriteFile(filepath.Join(files, "script.lua"), []byte("sysbench.cmdline.options = {my_option = {'mine', 1}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prog := range []string{"sysbench-go", "sysbench"} {
		t.Run(prog, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), prog)
			out, err := exec.Command(filepath.Join(bin, prog), "completion", "bash").Output()
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(script, out, 0o644); err != nil {
				t.Fatal(err)
			}
			var driver strings.Builder
			driver.WriteString("set -u\nsource " + script + "\n")
			driver.WriteString("complete -p " + prog + "\n")
			driver.WriteString(`c() { COMP_LINE=$1; COMP_POINT=${#1}; COMPREPLY=(); ` + funcName(prog) + `; echo "${COMPREPLY[*]}"; }` + "\n")
			for _, tc := range completionCases {
				line := strings.NewReplacer("PROG", prog, "FILES", files).Replace(tc.line)
				driver.WriteString("c '" + line + "'\n")
			}
			cmd := exec.Command("bash", "--norc", "--noprofile", "-c", driver.String())
			cmd.Dir = t.TempDir() // no file of the current directory among the names
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
			got, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, got)
			}
			lines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
			if lines[0] != "complete -F "+funcName(prog)+" "+prog {
				t.Errorf("registered as %q", lines[0])
			}
			for i, tc := range completionCases {
				want := strings.ReplaceAll(tc.want, "FILES", files)
				if i+1 >= len(lines) || lines[i+1] != want {
					t.Errorf("%s: %q, want %q", tc.line, lines[min(i+1, len(lines)-1)], want)
				}
			}
		})
	}
}

// TestZshCompletion runs the zsh completion function with the completion
// system's builtins stood in for, and checks what it offers.
func TestZshCompletion(t *testing.T) {
	t.Parallel()
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("no zsh (apt-get install zsh)")
	}
	bin := installedAs(t, "sysbench-go")
	out, err := exec.Command(filepath.Join(bin, "sysbench-go"), "completion", "zsh").Output()
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "_sysbench-go")
	if err := os.WriteFile(script, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	// compadd prints the words it is given (-a names the array), _files
	// says it was asked, compdef records the registration.
	driver := `compdef() { print -r -- "compdef $*" }
source ` + script + `
compadd() { local arr; while (( $# )); do case $1 in -a) arr=$2; shift 2;; -d) shift 2;; -*) shift;; *) shift;; esac; done; print -rn -- "${(P)arr} " }
_files() { print -rn -- "FILES " }
compset() { PREFIX=${PREFIX#*=} }
c() { words=(${=1}); [[ $1 == *' ' ]] && words+=(''); CURRENT=${#words}; PREFIX=${words[-1]}; _sysbench_go; print }
c 'sysbench-go --thr'
c 'sysbench-go oltp_read_write --table-s'
c 'sysbench-go oltp_read_write r'
c 'sysbench-go --db-driver=p'
c 'sysbench-go --config-file='
`
	cmd := exec.Command(zsh, "-f", "-c", driver)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("zsh: %v\n%s", err, got)
	}
	want := "compdef _sysbench_go sysbench-go\n" +
		"--threads= --thread-stack-size= --threshold= \n" +
		"--table-size= \n" +
		"prepare run cleanup help prewarm warmup \n" +
		"--db-driver=mysql --db-driver=pgsql --db-driver=sqlite \n" +
		"FILES \n"
	if string(got) != want {
		t.Errorf("zsh completion:\n%s\nwant:\n%s", got, want)
	}
}

// complete runs `sysbench-go __complete words...` and returns the words
// offered that start with the last one, as the shell keeps them.
func complete(t *testing.T, env []string, words ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.Binary(t), append([]string{"__complete"}, words...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("__complete %q: %v", words, err)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if w, _, _ := strings.Cut(l, "\t"); w != "" && strings.HasPrefix(w, words[len(words)-1]) {
			got = append(got, w)
		}
	}
	return got
}

func testdataPath(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCompletionRunsNothing completes the options of a script whose main
// chunk writes a file, runs a command, removes a file and connects to a
// listener the test holds, and checks them as deploy kubernetes does:
// none of it may happen, and the options the chunk declares after those
// calls are still read.
func TestCompletionRunsNothing(t *testing.T) {
	t.Parallel()
	script := testdataPath(t, "testdata", "complete", "side_effects.lua")
	t.Run("complete", func(t *testing.T) {
		noSideEffects(t, func(env []string, db ...string) {
			got := complete(t, env, append(db, script, "--after")...)
			if !slices.Equal(got, []string{"--after_side_effects="}) {
				t.Errorf("completion of the script's option: %q", got)
			}
		})
	})
	t.Run("deploy", func(t *testing.T) {
		noSideEffects(t, func(env []string, db ...string) {
			for _, tc := range []struct {
				opt  string
				code int
			}{{"--after_side_effects=2", 0}, {"--not_declared=2", 1}} {
				args := append(append([]string{"deploy", "kubernetes", "--instances=2"}, db...), script, tc.opt, "run")
				cmd := exec.Command(testenv.Binary(t), args...)
				cmd.Env = append(os.Environ(), env...)
				out, _ := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); code != tc.code {
					t.Errorf("deploy with %s: exit %d, want %d\n%.300s", tc.opt, code, tc.code, out)
				}
			}
		})
	})
}

// noSideEffects runs do with the environment and the database options
// side_effects.lua needs, then checks that it made, removed or connected
// to nothing.
func noSideEffects(t *testing.T, do func(env []string, db ...string)) {
	t.Helper()
	dir := t.TempDir()
	keep := filepath.Join(dir, "keep")
	if err := os.WriteFile(keep, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// A client connecting waits for the server's greeting: the connection
	// is counted before it is closed, so before the client can give up
	// and the command end.
	var conns atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	do([]string{"SIDE_EFFECTS_DIR=" + dir}, "--mysql-host=127.0.0.1", "--mysql-port="+port)
	if n := conns.Load(); n != 0 {
		t.Errorf("the script's main chunk connected to the listener %d times", n)
	}
	for _, f := range []string{"written", "executed"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("the script's main chunk made %s", f)
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the script's main chunk removed a file: %v", err)
	}
}

// TestCompletionDeclarations completes the options and commands of
// scripts that declare them in the shapes scripts use, the bundled
// scripts run from their files (as /usr/share/sysbench's: options from
// oltp_common.lua by require), and scripts whose main chunk fails or
// never ends, which get the general options.
func TestCompletionDeclarations(t *testing.T) {
	t.Parallel()
	shapes := testdataPath(t, "testdata", "complete", "shapes.lua")
	lua := testdataPath(t, "..", "lua") // the bundled scripts as files
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{shapes, "--l"}, "--literal_option= --loop_a_option --loop_b_option"},
		{[]string{shapes, "--field"}, "--field_option="},
		{[]string{shapes, "--mod"}, "--mode= --module_option="},
		{[]string{shapes, "--mode="}, "--mode=fast --mode=slow"},
		{[]string{shapes, "s"}, "seed"},
		{[]string{filepath.Join(lua, "oltp_read_write.lua"), "--table-s"}, "--table-size="},
		{[]string{filepath.Join(lua, "oltp_point_select.lua"), "--skip-"}, "--skip-checks --skip-trx"},
		{[]string{filepath.Join(lua, "oltp_read_write.lua"), "p"}, "prepare prewarm"},
		{[]string{filepath.Join(lua, "tpcb_like.lua"), "--sca"}, "--scale="},
		{[]string{filepath.Join(lua, "shop_mixed.lua"), "--sc"}, "--scale="},
		{[]string{filepath.Join(lua, "bulk_insert.lua"), "--thr"}, "--threads= --thread-stack-size= --threshold="},
		{[]string{testdataPath(t, "testdata", "complete", "fails.lua"), "--ne"}, ""},
		{[]string{testdataPath(t, "testdata", "complete", "loops.lua"), "--ne"}, ""},
		{[]string{testdataPath(t, "testdata", "complete", "loops.lua"), "--thr"}, "--threads= --thread-stack-size= --threshold="},
	} {
		got := strings.Join(complete(t, nil, tc.words...), " ")
		if got != tc.want {
			t.Errorf("%s %s: %q, want %q", filepath.Base(tc.words[0]), tc.words[1], got, tc.want)
		}
	}
}
