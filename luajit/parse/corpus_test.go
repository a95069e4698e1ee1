package parse

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// source is a Lua chunk of a test corpus.
type source struct{ name, text string }

// bundledSources are the workload scripts shipped in lua/ (always there).
func bundledSources(t testing.TB) []source {
	s := globSources(t, "../../lua/*.lua")
	if len(s) == 0 {
		t.Fatal("no bundled scripts in ../../lua")
	}
	return s
}

// sysbenchSources are the reference's installed scripts (GPL, so read where
// they are installed and never copied here). ok is false when missing.
func sysbenchSources(t testing.TB) (s []source, ok bool) {
	s = globSources(t, "/usr/share/sysbench/*.lua", "/usr/share/sysbench/tests/include/*.lua",
		"/usr/share/sysbench/tests/include/*/*.lua")
	return s, len(s) > 0
}

// checkoutSources are the Lua files and the scripts in the cram tests'
// heredocs of a sysbench 1.0.20 source checkout: $SYSBENCH_SRC, or
// /tmp/sysbench-1.0.20. ok is false when there is none.
func checkoutSources(t testing.TB) (s []source, ok bool) {
	dir := os.Getenv("SYSBENCH_SRC")
	if dir == "" {
		dir = "/tmp/sysbench-1.0.20"
	}
	if _, err := os.Stat(filepath.Join(dir, "src/lua")); err != nil {
		return nil, false
	}
	s = globSources(t, dir+"/src/lua/*.lua", dir+"/src/lua/internal/*.lua",
		dir+"/tests/include/*.lua", dir+"/tests/include/*/*.lua", dir+"/tests/include/*/*/*.lua")
	tests, _ := filepath.Glob(dir + "/tests/t/*.t")
	sort.Strings(tests)
	for _, f := range tests {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s = append(s, heredocs(filepath.Base(f), string(b))...)
	}
	return s, true
}

func globSources(t testing.TB, patterns ...string) []source {
	var out []source
	for _, pat := range patterns {
		files, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, source{f, string(b)})
		}
	}
	return out
}

var heredocStart = regexp.MustCompile(`^  \$ (?:cat ?>>? ?\S+|sysbench.*) <<'?"?(\w+)'?"?\s*$`)

// heredocs extracts the documents of a cram test's "  $ cmd <<EOF" lines,
// undoing the shell's quoting of an unquoted heredoc.
func heredocs(name, text string) []source {
	var out []source
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		m := heredocStart.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		start := i + 1
		var doc []string
		for i++; i < len(lines); i++ {
			l := lines[i]
			if l == "  > "+m[1] {
				break
			}
			l = strings.TrimPrefix(strings.TrimPrefix(l, "  >"), " ")
			doc = append(doc, l)
		}
		body := strings.Join(doc, "\n") + "\n"
		body = strings.NewReplacer(`\$`, `$`, `\\`, `\`, "\\`", "`").Replace(body)
		out = append(out, source{name + ":" + strconv.Itoa(start), body})
	}
	return out
}
