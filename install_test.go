package main

import (
	"archive/zip"
	"bytes"
	"debug/elf"
	"debug/macho"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// modulePath is this module's path, where `go install` finds it.
const modulePath = "github.com/sysbench-go/sysbench-go"

// command runs name with args in dir and returns its combined output,
// failing the test when it fails.
func command(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// sourceFiles are the repository's files as a release would have them:
// those git tracks and the new ones it does not ignore.
func sourceFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, f := range strings.Split(command(t, ".", nil, "git", "ls-files", "--cached", "--others", "--exclude-standard"), "\n") {
		if st, err := os.Lstat(f); err == nil && st.Mode().IsRegular() {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("git ls-files lists nothing")
	}
	return files
}

// TestMakeInstall installs into a prefix of its own, with the sysbench
// link, and runs the demo's workload with the installed binary.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the program")
	}
	prefix, build := t.TempDir(), t.TempDir()
	command(t, ".", nil, "make", "-s", "install", "PREFIX="+prefix, "BIN="+filepath.Join(build, "sysbench-go"), "SYSBENCH_LINK=1")
	for _, f := range []string{"bin/sysbench-go", "bin/sysbench", "share/man/man1/sysbench-go.1", "share/man/man1/sysbench.1",
		"share/bash-completion/completions/sysbench-go", "share/bash-completion/completions/sysbench",
		"share/zsh/site-functions/_sysbench-go", "share/zsh/site-functions/_sysbench"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("not installed: %v", err)
		}
	}
	bin := filepath.Join(prefix, "bin")
	if v := command(t, ".", nil, filepath.Join(bin, "sysbench"), "--version"); v != "sysbench 1.0.20\n" {
		t.Errorf("the sysbench link's --version: %q", v)
	}
	commit := strings.TrimSpace(command(t, ".", nil, "git", "rev-parse", "HEAD"))
	if v := command(t, ".", nil, filepath.Join(bin, "sysbench-go"), "--version"); !strings.HasPrefix(v, "sysbench-go ") || !strings.Contains(v, "(commit "+commit) {
		t.Errorf("the installed binary's --version does not name commit %s: %q", commit, v)
	}
	if comp, _ := os.ReadFile(filepath.Join(prefix, "share/bash-completion/completions/sysbench")); !bytes.Contains(comp, []byte("complete -F _sysbench sysbench\n")) {
		t.Errorf("the sysbench link's completion is not for sysbench")
	}
	out := command(t, ".", []string{"DEMO_TIME=2"}, "bash", "scripts/demo.sh", filepath.Join(bin, "sysbench-go"))
	for _, want := range []string{"transactions:", "95th percentile:", "sysbench-go report --percentile=50,99,99.9"} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo with the installed binary does not say %q:\n%s", want, out)
		}
	}
	command(t, ".", nil, "make", "-s", "uninstall", "PREFIX="+prefix)
	var left []string
	_ = filepath.WalkDir(prefix, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("make uninstall left %q", left)
	}
}

// TestMakeDist builds the release binaries: each of the four platforms',
// static, with its SHA-256 sum; the linux/amd64 one runs and says its
// stamped version; and a build from a copy of the sources elsewhere gives
// the same bytes.
func TestMakeDist(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: cross-compiles four binaries")
	}
	dist := t.TempDir()
	commit := strings.TrimSpace(command(t, ".", nil, "git", "rev-parse", "HEAD"))
	stamp := []string{"VERSION=v9.8.7-test", "GIT_COMMIT=" + commit, "GIT_DATE=2026-01-02T03:04:05Z"}
	command(t, ".", nil, "make", append([]string{"-s", "dist", "DIST=" + dist}, stamp...)...)
	sums := command(t, dist, nil, "sha256sum", "-c", "SHA256SUMS")
	for _, target := range []struct {
		os, arch string
		check    func(path string) error
	}{
		{"linux", "amd64", elfCheck(elf.EM_X86_64)},
		{"linux", "arm64", elfCheck(elf.EM_AARCH64)},
		{"darwin", "arm64", machoCheck(macho.CpuArm64)},
		{"darwin", "amd64", machoCheck(macho.CpuAmd64)},
	} {
		name := fmt.Sprintf("sysbench-go-v9.8.7-test-%s-%s", target.os, target.arch)
		if !strings.Contains(sums, name+": OK") {
			t.Errorf("%s: not in SHA256SUMS, or its sum is wrong:\n%s", name, sums)
		}
		if err := target.check(filepath.Join(dist, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	linux := filepath.Join(dist, "sysbench-go-v9.8.7-test-linux-amd64")
	want := "sysbench-go 9.8.7-test (commit " + commit + ", 2026-01-02T03:04:05Z, go"
	if v := command(t, ".", nil, linux, "--version"); !strings.HasPrefix(v, want) {
		t.Errorf("--version: %q, want it to begin %q", v, want)
	}

	// The same sources elsewhere: the same bytes.
	copyDir := t.TempDir()
	for _, f := range sourceFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(copyDir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(copyDir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	again := t.TempDir()
	command(t, copyDir, nil, "make", append([]string{"-s", "dist", "DIST=" + again, "DIST_TARGETS=linux/amd64"}, stamp...)...)
	a, _ := os.ReadFile(linux)
	b, _ := os.ReadFile(filepath.Join(again, filepath.Base(linux)))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("a build of the same sources in another directory differs (%d and %d bytes)", len(a), len(b))
	}
}

// elfCheck: a static Linux executable for machine m.
func elfCheck(m elf.Machine) func(string) error {
	return func(path string) error {
		f, err := elf.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if f.Machine != m {
			return fmt.Errorf("machine %v, not %v", f.Machine, m)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				return fmt.Errorf("not static: it has %v", p.Type)
			}
		}
		return nil
	}
}

// machoCheck: a macOS executable for cpu c.
func machoCheck(c macho.Cpu) func(string) error {
	return func(path string) error {
		f, err := macho.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if f.Cpu != c || f.Type != macho.TypeExec {
			return fmt.Errorf("cpu %v type %v, not an executable for %v", f.Cpu, f.Type, c)
		}
		return nil
	}
}

// TestGoInstall installs the program as a user would, `go install
// MODULE@VERSION`, from a module proxy made here (a directory: no
// network), and runs it: the module path is one `go install` takes, its
// go.mod has no replace directive (go install refuses them), and the
// version it reports is the module's.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the program")
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^module (\S+)$`).FindSubmatch(gomod); m == nil || string(m[1]) != modulePath {
		t.Fatalf("go.mod's module is not %s", modulePath)
	}
	if regexp.MustCompile(`(?m)^\s*replace\b`).Match(gomod) {
		t.Fatal("go.mod has a replace directive: go install MODULE@VERSION refuses it")
	}
	const version = "v0.99.0"
	proxy := t.TempDir()
	dir := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	info := fmt.Sprintf(`{"Version":%q,"Time":%q}`, version, time.Now().UTC().Format(time.RFC3339))
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": []byte(info), version + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	for _, f := range sourceFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(modulePath + "@" + version + "/" + filepath.ToSlash(f))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, version+".zip"), zbuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// The dependencies come from this machine's module cache, itself laid
	// out as a proxy; the module cache of the install is a new one. The
	// checksum database is not reachable offline: what this test checks
	// is that the module installs, not where its dependencies came from.
	// -trimpath and no cgo, as make builds, share the build cache.
	goModCache := strings.TrimSpace(command(t, ".", nil, "go", "env", "GOMODCACHE"))
	gobin, modCache := t.TempDir(), t.TempDir()
	// The module cache's files are read-only: make them removable (this
	// runs before TempDir's removal). Never `go clean -modcache` here: run
	// without this test's environment it would empty the machine's cache.
	t.Cleanup(func() {
		_ = filepath.WalkDir(modCache, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
	})
	env := []string{
		"GOPROXY=file://" + proxy + ",file://" + filepath.Join(goModCache, "cache", "download"),
		"GOMODCACHE=" + modCache, "GOBIN=" + gobin, "GOFLAGS=-mod=mod -trimpath", "CGO_ENABLED=0",
		"GOSUMDB=off", "GOTOOLCHAIN=local", "GOWORK=off",
	}
	command(t, t.TempDir(), env, "go", "install", modulePath+"@"+version)
	out := command(t, ".", nil, filepath.Join(gobin, "sysbench-go"), "--version")
	if !strings.HasPrefix(out, "sysbench-go 0.99.0 (go") {
		t.Errorf("the installed program's --version: %q", out)
	}
	if out := command(t, ".", nil, filepath.Join(gobin, "sysbench-go"), "--events=10", "cpu", "run"); !strings.Contains(out, "total number of events:              10") {
		t.Errorf("the installed program does not run:\n%s", out)
	}
}
