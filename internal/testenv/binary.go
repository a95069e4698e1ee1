package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  []byte
)

// Binary is the sysbench-go program for tests that run it as a process:
// $SYSBENCH_GO_BIN (make test builds it), else one built from this module
// once per test binary.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("SYSBENCH_GO_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		dir, err := os.MkdirTemp("", "sysbench-go-bin")
		if err != nil {
			buildErr = []byte(err.Error())
			return
		}
		out := filepath.Join(dir, "sysbench-go")
		cmd := exec.Command("go", "build", "-o", out, ".")
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = append(b, err.Error()...)
			return
		}
		built = out
	})
	if built == "" {
		t.Fatalf("building sysbench-go: %s", buildErr)
	}
	return built
}
