package compare

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const goodMatrix = `title = "t"
rounds = 3
time = 2
threads = [1, 4]
rotate = true
prepare = "each-switch"
options = { rand-type = "uniform" }

[[target]]
name = "a"
driver = "mysql"
options = { mysql-host = "127.0.0.1", mysql-password = "pw" }

[[target]]
name = "b"
driver = "pgsql"

[[target]]
name = "c"
driver = "sqlite"

[[dataset]]
name = "sb"
script = "oltp_common"
options = { tables = 2, table-size = 100, rand-type = "pareto" }

[[workload]]
name = "ps"
script = "oltp_point_select"
options = { table-size = 50 }

[[workload]]
name = "rw"
script = "oltp_read_write"
`

func bundled(s string) bool { return strings.HasPrefix(s, "oltp_") }

func parse(t *testing.T, doc string) (*Matrix, error) {
	t.Helper()
	m, err := ParseMatrix([]byte(doc), "m.toml")
	if err != nil {
		return nil, err
	}
	m.bundled = bundled
	return m, m.Check()
}

// Bad matrix files are refused with the file, the line of what is wrong,
// and what it is.
func TestMatrixErrors(t *testing.T) {
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown key", `driver = "pgsql"`, "driver = \"pgsql\"\nhots = \"x\"", `m.toml:17: unknown key "target.hots"`},
		{"unknown top-level key", `rounds = 3`, `roudns = 3`, `m.toml:2: unknown key "roudns"`},
		{"syntax", `time = 2`, `time = `, `m.toml:3:`},
		{"wrong type", `time = 2`, `time = "2"`, `m.toml:3: time must be a whole number, not a string ("2")`},
		// Issue 28, item 8: type errors in the matrix file's words.
		{"rounds as a word", `rounds = 3`, `rounds = "two"`, `m.toml:2: rounds must be a whole number, not a string ("two")`},
		{"threads not a list", `threads = [1, 4]`, `threads = 4`, `m.toml:4: threads must be a list of whole numbers, such as [10, 50], not a whole number (4)`},
		{"a thread count as a word", `threads = [1, 4]`, `threads = [1, "four"]`, `m.toml:4: each item of threads must be a whole number, not a string ([1, "four"])`},
		{"rotate as a number", `rotate = true`, `rotate = 1`, `m.toml:5: rotate must be true or false, not a whole number (1)`},
		{"options as a list", `options = { rand-type = "uniform" }`, `options = ["uniform"]`, `m.toml:7: options must be a table, such as { name = "value" }, not a list (["uniform"])`},
		{"target name as a number", `name = "b"`, `name = 2`, `m.toml:15: target.name must be a string in quotes, not a whole number (2)`},
		{"missing driver", "name = \"b\"\ndriver = \"pgsql\"", `name = "b"`, `m.toml:14: target "b" has no driver`},
		{"unknown driver", `driver = "pgsql"`, `driver = "oracle"`, `m.toml:16: target "b": unknown driver "oracle"`},
		{"missing name", "name = \"c\"\n", "", `m.toml:18: [[target]] has no name`},
		{"duplicate name", `name = "c"`, `name = "a"`, `m.toml:19: two targets are named "a"`},
		{"unknown workload", `script = "oltp_read_write"`, `script = "nonesuch.lua"`, `m.toml:34: unknown workload "nonesuch.lua"`},
		{"unknown data set", "name = \"rw\"\n", "name = \"rw\"\ndataset = \"other\"\n", `m.toml:34: workload "rw": no data set named "other"`},
		{"no threads", "threads = [1, 4]\n", "", `m.toml: threads is missing`},
		{"bad policy", `prepare = "each-switch"`, `prepare = "always"`, `m.toml:6: prepare must be`},
		{"reserved option", `options = { table-size = 50 }`, `options = { threads = 8 }`, `m.toml:30: option "threads" is set by the matrix itself`},
		{"dashed option", `options = { table-size = 50 }`, `options = { --table-size = 50 }`, `m.toml:30:`},
		{"zero rounds", `rounds = 3`, `rounds = 0`, `m.toml:2: rounds must be 1 or more`},
	}
	if _, err := parse(t, goodMatrix); err != nil {
		t.Fatalf("the good matrix: %v", err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := strings.Replace(goodMatrix, c.from, c.to, 1)
			if doc == goodMatrix {
				t.Fatalf("%q is not in the matrix", c.from)
			}
			_, err := parse(t, doc)
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want one starting %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is more than one line: %q", err)
			}
		})
	}
}

// A script file is found next to the matrix file, wherever the command
// runs from.
func TestMatrixScriptFile(t *testing.T) {
	dir := t.TempDir()
	doc := strings.Replace(goodMatrix, `script = "oltp_read_write"`, `script = "my.lua"`, 1)
	path := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadMatrix(path, bundled); err == nil || !strings.Contains(err.Error(), `unknown workload "my.lua"`) {
		t.Fatalf("missing script: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "my.lua"), []byte("function event() end\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadMatrix(path, bundled)
	if err != nil {
		t.Fatal(err)
	}
	run := NewPlan(m).Blocks[0].Runs[2]
	if run.Workload != "rw" || run.Args[0] != filepath.Join(dir, "my.lua") {
		t.Fatalf("cell %s runs %q, want the script's path", run.ID, run.Args[0])
	}
}

// The plan rotates the targets each round, and a cell's options are the
// target's, then the matrix's, the data set's and the workload's, a
// later one winning.
func TestPlan(t *testing.T) {
	m, err := parse(t, goodMatrix)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(m)
	var order []string
	for _, b := range p.Blocks {
		order = append(order, b.Target)
	}
	if want := []string{"a", "b", "c", "b", "c", "a", "c", "a", "b"}; !slices.Equal(order, want) {
		t.Errorf("blocks in order %v, want %v", order, want)
	}
	if n := p.Cells(); n != 3*2*2*3 {
		t.Errorf("%d cells, want %d", n, 3*2*2*3)
	}
	run := p.Blocks[0].Runs[0]
	want := []string{"oltp_point_select", "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-password=pw",
		"--rand-type=pareto", "--table-size=50", "--tables=2", "--threads=1", "--time=2", "--warmup-time=0",
		"--report-interval=1", "run"}
	if run.ID != "a.ps.t1.r1" || !slices.Equal(run.Args, want) {
		t.Errorf("first cell %s: %q\nwant a.ps.t1.r1: %q", run.ID, run.Args, want)
	}
	m.Rotate = false
	if b := NewPlan(m).Blocks[3]; b.Target != "a" || b.Round != 2 {
		t.Errorf("without rotation the 4th block is %s of round %d", b.Target, b.Round)
	}
	prep := m.prepareArgs(&m.Targets[1], m.datasetNamed("sb"), "prepare")
	if want := []string{"oltp_common", "--db-driver=pgsql", "--rand-type=pareto", "--table-size=100", "--tables=2", "--threads=2", "prepare"}; !slices.Equal(prep, want) {
		t.Errorf("prepare: %q, want %q", prep, want)
	}
}

// With replace_existing, a data set's cleanup gets --force-cleanup when
// its script takes it (the shop_* and tpcb_* scripts, whose cleanup
// otherwise refuses tables their marker does not list): this comparison
// has checked the tables itself. Never without replace_existing, nor for
// a script that does not take it.
func TestCleanupForcedOnlyWithReplaceExisting(t *testing.T) {
	m, err := parse(t, goodMatrix)
	if err != nil {
		t.Fatal(err)
	}
	takes := map[string]bool{"oltp_common": true}
	m.ForceCleanup = func(script string) bool { return takes[script] }
	forced := func(command string) bool {
		return slices.Contains(m.prepareArgs(&m.Targets[1], m.datasetNamed("sb"), command), "--force-cleanup=on")
	}
	if forced("cleanup") {
		t.Error("--force-cleanup without replace_existing")
	}
	m.ReplaceExisting = true
	if !forced("cleanup") || forced("prepare") {
		t.Errorf("with replace_existing: cleanup forced %v (want true), prepare forced %v (want false)", forced("cleanup"), forced("prepare"))
	}
	takes["oltp_common"] = false
	if forced("cleanup") {
		t.Error("--force-cleanup given to a script that does not take it")
	}
}

// A finished cell is kept when the matrix still runs it the same way, and
// run again when its options changed.
func TestResumeKeepsOnlyTheSameCells(t *testing.T) {
	m, err := parse(t, goodMatrix)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &Runner{Matrix: m, Dir: dir}
	if err := r.Open(); err != nil {
		t.Fatal(err)
	}
	for i := range r.manifest.Cells {
		r.manifest.Cells[i].Status = StatusDone
	}
	if err := r.manifest.write(dir); err != nil {
		t.Fatal(err)
	}
	m.Workloads[0].Options["table-size"] = int64(60)
	m.Rounds = 4
	man, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := NewPlan(m).Kept(man) // what --plan shows as kept
	r2 := &Runner{Matrix: m, Dir: dir}
	if err := r2.Open(); err != nil {
		t.Fatal(err)
	}
	for _, c := range r2.manifest.Cells {
		changed := c.Workload == "ps" || c.Round == 4
		if got := c.Status == StatusDone; got == changed || kept(c.ID) != got {
			t.Errorf("%s: done %v after the change, shown kept %v", c.ID, got, kept(c.ID))
		}
	}
}

// A directory with no comparison in it is one clear line.
func TestBuildWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	if _, err := Build(dir); err == nil || err.Error() != "compare: no comparison in '"+dir+"' (it has no manifest.json)" {
		t.Errorf("Build of an empty directory: %v", err)
	}
}

// A capacity matrix: its cells run the capacity command with the
// objective and the search's settings; what only a fixed load's cells
// have is refused, and so is a bad [capacity].
func TestCapacityMatrix(t *testing.T) {
	capacity := strings.Replace(strings.Replace(goodMatrix, "time = 2\n", "", 1), "[[target]]",
		"[capacity]\nslo = [\"p99<=10ms\", \"errors<=0.1%\"]\ntime = 60\nprecision = 5\n\n[[target]]", 1)
	m, err := parse(t, capacity)
	if err != nil {
		t.Fatal(err)
	}
	run := NewPlan(m).Blocks[0].Runs[0]
	want := []string{"oltp_point_select", "--db-driver=mysql", "--mysql-host=127.0.0.1", "--mysql-password=pw",
		"--rand-type=pareto", "--table-size=50", "--tables=2", "--threads=1", "--slo=p99<=10ms", "--slo=errors<=0.1%",
		"--capacity-time=60", "--capacity-precision=5", "capacity"}
	if !slices.Equal(run.Args, want) {
		t.Errorf("capacity cell: %q\nwant %q", run.Args, want)
	}
	if d := designOf(m); d.Capacity == nil || d.Capacity.TimeS != 60 || len(d.Capacity.Objective) != 2 {
		t.Errorf("design's capacity %+v", d.Capacity)
	}
	for _, c := range []struct{ from, to, want string }{
		{"threads = [1, 4]", "threads = [1, 4]\ntime = 2", `m.toml:4: time is a fixed-load cell's: with [capacity], each search's time is capacity.time`},
		{"threads = [1, 4]", "threads = [1, 4]\nserver_stats = true", `m.toml:4: server_stats measures one run`},
		{"threads = [1, 4]", "threads = [1, 4]\nwarmup = 1", `m.toml:4: warmup is a fixed-load cell's`},
		{"time = 60\n", "", `m.toml:8: capacity.time must be 1 second or more`},
		{`slo = ["p99<=10ms", "errors<=0.1%"]`, `slo = ["tps>100"]`, `m.toml:9: capacity.slo 'tps>100': the search finds the rate`},
		{`slo = ["p99<=10ms", "errors<=0.1%"]`, `slo = ["p99<=10kg"]`, `m.toml:9: capacity.slo 'p99<=10kg':`},
		{`slo = ["p99<=10ms", "errors<=0.1%"]`, `slo = "p99<=10ms"`, `m.toml:9: capacity.slo must be a list of strings, such as ["p99<=10ms"], not a string`},
		{`slo = ["p99<=10ms", "errors<=0.1%"]` + "\n", "", `m.toml:8: capacity.slo is missing`},
		{"precision = 5", "precision = 80", `m.toml:11: capacity.precision must be from 0.1 to 50`},
		{"precision = 5", "rounds = 1", `m.toml:11: capacity.rounds must be from 2 to 100`},
		{`options = { table-size = 50 }`, `options = { slo = "p99<=1ms" }`, `m.toml:34: option "slo" is set by the matrix itself`},
	} {
		doc := strings.Replace(capacity, c.from, c.to, 1)
		if doc == capacity {
			t.Fatalf("%q is not in the matrix", c.from)
		}
		if _, err := parse(t, doc); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s -> %s: error %v, want one starting %q", c.from, c.to, err, c.want)
		}
	}
}
