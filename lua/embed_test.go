package lua

import (
	"io/fs"
	"sort"
	"strings"
	"testing"
)

// TestWorkloadsListEveryScript: --help lists exactly the bundled scripts
// that are run by name (those starting with a #! line), sorted.
func TestWorkloadsListEveryScript(t *testing.T) {
	files, err := fs.Glob(Scripts, "*.lua")
	if err != nil {
		t.Fatal(err)
	}
	var runnable []string
	for _, f := range files {
		b, err := fs.ReadFile(Scripts, f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(b), "#!") {
			runnable = append(runnable, strings.TrimSuffix(f, ".lua"))
		}
	}
	var listed []string
	for _, w := range Workloads {
		if w.Description == "" || strings.Contains(w.Description, "\n") {
			t.Errorf("%s: the description must be one non-empty line", w.Name)
		}
		listed = append(listed, w.Name)
	}
	if !sort.StringsAreSorted(listed) {
		t.Errorf("Workloads are not sorted: %v", listed)
	}
	if strings.Join(listed, " ") != strings.Join(runnable, " ") {
		t.Errorf("Workloads lists\n  %v\nthe runnable bundled scripts are\n  %v", listed, runnable)
	}
}
