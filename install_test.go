package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
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
	t.Parallel()
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

// TestDistTargets: make dist builds for Linux and macOS on both CPUs.
func TestDistTargets(t *testing.T) {
	t.Parallel()
	out := command(t, ".", nil, "make", "-s", "-n", "dist", "DIST=/nonexistent")
	for _, target := range []string{"linux/amd64", "linux/arm64", "darwin/arm64", "darwin/amd64"} {
		if !strings.Contains(out, target) {
			t.Errorf("make dist does not build %s:\n%s", target, out)
		}
	}
}

// TestMakeDist builds a release archive: it holds, in a directory of its
// own name, the static binary, LICENSE, the modules' licenses, README.md,
// the manual page and both completions, and has its SHA-256 sum; the
// binary runs and says its stamped version; and a build from a copy of the
// sources elsewhere gives the same bytes, archive and all. The archive is
// this machine's platform's: its build shares the compiled packages of the
// suite's own build (make build's flags), where another platform's would
// compile every dependency again (a darwin/arm64 build cost a cold run 3
// minutes of 2 cores); every target is built by the same lines of
// dist.sh, and TestDistTargets checks the list.
func TestMakeDist(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: builds the release archive")
	}
	dist := t.TempDir()
	commit := strings.TrimSpace(command(t, ".", nil, "git", "rev-parse", "HEAD"))
	stamp := []string{"VERSION=v9.8.7-test", "GIT_COMMIT=" + commit, "GIT_DATE=2026-01-02T03:04:05Z"}
	command(t, ".", nil, "make", append([]string{"-s", "dist", "DIST=" + dist, "DIST_TARGETS=linux/amd64"}, stamp...)...)
	sums := command(t, dist, nil, "sha256sum", "-c", "SHA256SUMS")
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		t.Fatalf("no LICENSE at the root: %v", err)
	}
	for _, target := range []struct {
		os, arch string
		check    func(path string) error
	}{
		{"linux", "amd64", elfCheck(elf.EM_X86_64)},
	} {
		name := fmt.Sprintf("sysbench-go-v9.8.7-test-%s-%s", target.os, target.arch)
		if !strings.Contains(sums, name+".tar.gz: OK") {
			t.Errorf("%s.tar.gz: not in SHA256SUMS, or its sum is wrong:\n%s", name, sums)
			continue
		}
		files := untar(t, filepath.Join(dist, name+".tar.gz"), filepath.Join(dist, "x"))
		want := map[string]time.Time{}
		for _, f := range []string{"sysbench-go", "LICENSE", "THIRD_PARTY_LICENSES", "README.md", "sysbench-go.1",
			"completions/sysbench-go.bash", "completions/_sysbench-go"} {
			want[name+"/"+f] = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		}
		for f, mtime := range want {
			if got, ok := files[f]; !ok {
				t.Errorf("%s.tar.gz has no %s (it has %v)", name, f, files)
			} else if !got.Equal(mtime) {
				t.Errorf("%s.tar.gz: %s dated %v, not the commit's %v", name, f, got, mtime)
			}
		}
		dir := filepath.Join(dist, "x", name)
		if err := target.check(filepath.Join(dir, "sysbench-go")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "LICENSE")); !bytes.Equal(got, license) {
			t.Errorf("%s: LICENSE is not the repository's", name)
		}
		third, _ := os.ReadFile(filepath.Join(dir, "THIRD_PARTY_LICENSES"))
		for _, mod := range []string{"github.com/yuin/gopher-lua", "github.com/jackc/pgx/v5", "github.com/go-sql-driver/mysql"} {
			if !bytes.Contains(third, []byte(mod+" v")) {
				t.Errorf("%s: THIRD_PARTY_LICENSES does not name %s", name, mod)
			}
		}
		if bytes.Contains(third, []byte("(no license file")) {
			t.Errorf("%s: a module without a license text:\n%s", name, third)
		}
		if man, _ := os.ReadFile(filepath.Join(dir, "sysbench-go.1")); !bytes.HasPrefix(man, []byte(".TH")) && !bytes.Contains(man, []byte("\n.TH")) {
			t.Errorf("%s: sysbench-go.1 is not a manual page", name)
		}
		if bash, _ := os.ReadFile(filepath.Join(dir, "completions", "sysbench-go.bash")); !bytes.Contains(bash, []byte("complete ")) {
			t.Errorf("%s: the bash completion has no complete command", name)
		}
	}
	linux := filepath.Join(dist, "x", "sysbench-go-v9.8.7-test-linux-amd64", "sysbench-go")
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
	archive := "sysbench-go-v9.8.7-test-linux-amd64.tar.gz"
	a, _ := os.ReadFile(filepath.Join(dist, archive))
	b, _ := os.ReadFile(filepath.Join(again, archive))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("a build of the same sources in another directory differs (%d and %d bytes)", len(a), len(b))
	}
}

// untar unpacks archive into dir with tar and returns its members' times
// by name (regular files only).
func untar(t *testing.T, archive, dir string) map[string]time.Time {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	command(t, ".", nil, "tar", "-xzf", archive, "-C", dir)
	files := map[string]time.Time{}
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", archive, err)
		}
		if h.Typeflag == tar.TypeReg {
			files[h.Name] = h.ModTime.UTC()
		}
	}
	return files
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

// TestGoInstall installs the program as a user would, `go install
// MODULE@VERSION`, from a module proxy made here (a directory: no
// network), and runs it: the module path is one `go install` takes, its
// go.mod has no replace directive (go install refuses them), and the
// version it reports is the module's.
func TestGoInstall(t *testing.T) {
	t.Parallel()
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
