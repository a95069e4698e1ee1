package authoring

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/luaapi"
)

// TestReferenceOnly: referenceOnly is exactly what a script's state has
// under the installed sysbench 1.0.20 and lacks under ours (package.* and
// ffi.C's symbols aside), both walked from the globals to three levels.
func TestReferenceOnly(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("sysbench")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no sysbench: CI installs the sysbench package")
		}
		t.Skip("no sysbench installed")
	}
	script := filepath.Join(t.TempDir(), "names.lua")
	err = os.WriteFile(script, []byte(`
local seen = {}
local function walk(t, p, d)
  if d > 3 or seen[t] then return end
  seen[t] = true
  for k, v in pairs(t) do
    if type(k) == "string" then
      local n = p == "" and k or p .. "." .. k
      print("name " .. n)
      if type(v) == "table" and k ~= "_G" and k ~= "loaded" then walk(v, n, d + 1) end
    end
  end
end
ffi = require("ffi")
walk(_G, "", 0)
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, script).Output()
	if err != nil {
		t.Fatal(err)
	}
	sf, err := luaapi.APISurface()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, l := range strings.Split(string(out), "\n") {
		n, ok := strings.CutPrefix(l, "name ")
		if !ok || n == "_G" || strings.HasPrefix(n, "package.") || strings.HasPrefix(n, "ffi.C.") {
			continue
		}
		if _, ok := sf.Names[n]; !ok {
			missing = append(missing, n)
		}
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	var listed []string
	for n := range referenceOnly {
		listed = append(listed, n)
	}
	slices.Sort(listed)
	if !slices.Equal(missing, listed) {
		t.Errorf("sysbench's state has, and ours lacks: %v; referenceOnly lists %v", missing, listed)
	}
}
