package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	// startDir is the test binary's working directory before any test
	// changes it (t.Chdir).
	startDir, startErr = os.Getwd()

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
		// The module's root: the first directory up from the test's
		// package (the working directory the test binary started in)
		// with a go.mod. Not this file's path, which a -trimpath build
		// (scripts/test.sh) gives as an import path.
		root, err := startDir, startErr
		for err == nil {
			if _, statErr := os.Stat(filepath.Join(root, "go.mod")); statErr == nil {
				break
			}
			parent := filepath.Dir(root)
			if parent == root {
				err = os.ErrNotExist
			}
			root = parent
		}
		if err != nil {
			buildErr = []byte("no go.mod above the working directory: " + err.Error())
			return
		}
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
