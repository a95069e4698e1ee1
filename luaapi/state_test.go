package luaapi

import "testing"

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
