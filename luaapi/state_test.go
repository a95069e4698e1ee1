package luaapi

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sysbench-go/sysbench-go/options"
)

// runScriptIn loads a script written to dir and returns what its body
// printed.
func runScriptIn(t *testing.T, dir, src string) string {
	t.Helper()
	path := filepath.Join(dir, "main.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	s, err := Load(&Env{Values: options.NewValues(), Out: &out, Threads: 1}, path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	s.Close()
	return out.String()
}

// Every state a script runs in has our table.sort: the repro in a
// script's main chunk.
func TestScriptStateHasTableSort(t *testing.T) {
	dir := t.TempDir()
	runScriptIn(t, dir, `local t = {}
for i = 1, 8 do t[i] = 9 - i end
for j = 4, 8 do t[j] = nil end
table.sort(t)
assert(#t == 3 and t[1] == 6 and t[2] == 7 and t[3] == 8)
`)
}
