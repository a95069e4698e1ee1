package compile

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite the golden listings")

// TestListings compares the bytecode of small chunks with golden
// listings (go test -update rewrites them after a reviewed change).
func TestListings(t *testing.T) {
	files, err := filepath.Glob("testdata/listing/*.lua")
	if err != nil || len(files) == 0 {
		t.Fatalf("no chunks in testdata/listing: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := Listing(compileChunk(t, string(src)))
			golden := strings.TrimSuffix(f, ".lua") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if got != string(want) {
				t.Errorf("listing of %s differs from %s:\n%s", f, golden, testenv.LineDiff(string(want), got))
			}
		})
	}
}
