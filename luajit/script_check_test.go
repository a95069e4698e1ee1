package luajit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkScript runs a Lua script in a state of ours and, when luajit is
// installed, in luajit, and compares what each printed with want, which
// was recorded with luajit 2.1. The script finds a scratch directory in
// the global DIR, printed as "DIR"; both run it as chunk "script.lua";
// luajitEnv is added to luajit's environment (TZ=...).
func checkScript(t *testing.T, script, want string, luajitEnv ...string) {
	t.Helper()
	dir := t.TempDir()
	prefix := "DIR = " + strconvQuote(dir) + "\n"
	L := newLuaJITState(t)
	proto, err := Compile(strings.NewReader(prefix+script), "@script.lua")
	if err != nil {
		t.Fatal(err)
	}
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 0, nil); err != nil {
		t.Fatalf("ours: %v", err)
	}
	closeFiles(L)
	if got := strings.ReplaceAll(testOutput(L), dir, "DIR"); got != want {
		t.Errorf("ours:\n%s\nwant (luajit):\n%s", got, want)
	}
	bin, ok := luajitToRecheck(t)
	if !ok {
		return
	}
	ljDir := t.TempDir()
	run := t.TempDir()
	file := filepath.Join(run, "script.lua")
	if err := os.WriteFile(file, []byte("DIR = "+strconvQuote(ljDir)+"\n"+script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "script.lua")
	cmd.Dir = run
	cmd.Env = append(os.Environ(), luajitEnv...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("luajit: %v", err)
	}
	if got := strings.ReplaceAll(string(out), ljDir, "DIR"); got != want {
		t.Errorf("recorded output is not luajit's:\nluajit:\n%s\nrecorded:\n%s", got, want)
	}
}

// strconvQuote quotes a path as a Lua string literal.
func strconvQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
