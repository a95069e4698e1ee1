package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// LuaJITRecords runs probe (a Lua script) under the luajit binary, skipping
// the test when luajit is not installed. The probe reads the file named by
// arg[1], which holds each source as a record "<length>\n<bytes>", and
// answers each with a record of the same shape on standard output; args
// come before the file name on luajit's command line (options such as
// -joff) or, after "--", after it (the probe's own arguments).
func LuaJITRecords(t testing.TB, probe string, args []string, sources []string) []string {
	t.Helper()
	bin := Tool(t, "luajit", "apt-get install luajit")
	dir := t.TempDir()
	var in bytes.Buffer
	for _, s := range sources {
		fmt.Fprintf(&in, "%d\n%s", len(s), s)
	}
	input, script := filepath.Join(dir, "in"), filepath.Join(dir, "probe.lua")
	if err := os.WriteFile(input, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after []string
	before = args
	for i, a := range args {
		if a == "--" {
			before, after = args[:i], args[i+1:]
			break
		}
	}
	argv := append(append(append([]string{}, before...), script, input), after...)
	out, err := exec.Command(bin, argv...).Output()
	if err != nil {
		t.Fatalf("luajit: %v", err)
	}
	r := bufio.NewReader(bytes.NewReader(out))
	results := make([]string, 0, len(sources))
	for range sources {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("luajit output ends after %d of %d results", len(results), len(sources))
		}
		n, err := strconv.Atoi(line[:len(line)-1])
		if err != nil {
			t.Fatalf("luajit output: record length %q", line)
		}
		msg := make([]byte, n)
		if _, err := io.ReadFull(r, msg); err != nil {
			t.Fatal(err)
		}
		results = append(results, string(msg))
	}
	return results
}
