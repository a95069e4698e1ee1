package main

import (
	"os"
	"strings"
	"testing"
)

// TestDependenciesDocumented: every module go.mod requires directly is
// named in docs/dependencies.md, which says why it is there (issue 48,
// item 8).
func TestDependenciesDocumented(t *testing.T) {
	t.Parallel()
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("docs/dependencies.md")
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, l := range strings.Split(string(mod), "\n") {
		switch {
		case strings.HasPrefix(l, "require ("):
			in = true
		case l == ")":
			in = false
		case in && strings.TrimSpace(l) != "" && !strings.Contains(l, "// indirect"):
			if path := strings.Fields(l)[0]; !strings.Contains(string(doc), "`"+path+"`") {
				t.Errorf("docs/dependencies.md does not say why go.mod requires %s", path)
			}
		}
	}
	// Named in the design and left out: the page says why.
	for _, path := range []string{"github.com/urfave/cli/v2", "github.com/rcrowley/go-metrics"} {
		if !strings.Contains(string(doc), "`"+path+"`") {
			t.Errorf("docs/dependencies.md does not say why %s is not used", path)
		}
	}
}
