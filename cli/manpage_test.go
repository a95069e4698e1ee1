package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/options"
)

// TestManPage: the manual page holds every option of the tables --help
// prints (general, drivers, built-in tests), those of our commands and of
// every bundled workload, and groff reads it without a warning.
func TestManPage(t *testing.T) {
	t.Parallel()
	page, code := runCLI(t, "man")
	if code != 0 || !strings.HasPrefix(page, `.\" `) {
		t.Fatalf("exit %d:\n%.300s", code, page)
	}
	has := func(where string, opts []options.Option) {
		for _, o := range opts {
			if !strings.Contains(page, ".B \\-\\-"+roff(o.Name)) {
				t.Errorf("%s: --%s is not in the manual page", where, o.Name)
			}
		}
	}
	for _, g := range generalGroups() {
		has(g.title, g.opts)
	}
	p := &program{drivers: compiledDrivers()}
	for _, d := range p.drivers {
		has(d.Name, d.Options)
	}
	for _, c := range ourCommands() {
		has(c.name, c.options)
	}
	for _, w := range lua.Workloads {
		opts, _ := (&program{}).testOptions(nil, w.Name, readBudget)
		if len(opts) == 0 && w.Name != "bulk_insert" { // the one that has none
			t.Errorf("%s: no options read", w.Name)
		}
		has(w.Name, opts)
		if !strings.Contains(page, ".SS \""+roff(w.Name)+" \\- ") {
			t.Errorf("%s has no section", w.Name)
		}
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("no groff to read the page with")
	}
	file := filepath.Join(t.TempDir(), "sysbench-go.1")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(groff, "-man", "-ww", "-z", file).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
	text, err := exec.Command(groff, "-man", "-Tascii", file).Output()
	text = regexp.MustCompile(".\b").ReplaceAll(text, nil) // bold and underline by overstriking
	if err != nil || !strings.Contains(string(text), "--threads=N") || !strings.Contains(string(text), "--table_size=N") {
		t.Errorf("groff -Tascii: %v\n%.2000s", err, text)
	}
}

func TestRoff(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`a\b`:        `a\eb`,
		"--x":        `\-\-x`,
		".starts":    `\&.starts`,
		"'quote":     `\&'quote`,
		"mid . dots": "mid . dots",
	} {
		if got := roff(in); got != want {
			t.Errorf("roff(%q) = %q, want %q", in, got, want)
		}
	}
}
