package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An output is "-", a regular file, or a symbolic link to one (followed,
// the link kept); anything else is refused with one line before anything
// is written, and nothing is left behind.
func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "old.json")
	if err := os.WriteFile(regular, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("old.json", link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling.json")
	if err := os.Symlink("made.json", dangling); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	toDevice := filepath.Join(dir, "null.json")
	if err := os.Symlink("/dev/null", toDevice); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		path, file string // file: the file written ("" for standard output)
	}{
		{"-", ""},
		{filepath.Join(dir, "new.json"), filepath.Join(dir, "new.json")},
		{regular, regular},
		{link, regular},
		{dangling, filepath.Join(dir, "made.json")},
	} {
		o, err := CheckOutput(c.path)
		if err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		var stdout bytes.Buffer
		if err := o.WriteAtomic(&stdout, []byte("new")); err != nil {
			t.Errorf("%s: %v", c.path, err)
			continue
		}
		if c.file == "" {
			if !o.IsStdout() || stdout.String() != "new" {
				t.Errorf("%s: standard output got %q", c.path, stdout.String())
			}
			continue
		}
		if b, err := os.ReadFile(c.file); err != nil || string(b) != "new" {
			t.Errorf("%s: %s holds %q (%v)", c.path, c.file, b, err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symbolic link was replaced: %v", err)
	}
	if fi, err := os.Stat(regular); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the replaced file's permissions: %v (%v), want 0600", fi.Mode(), err)
	}

	for path, want := range map[string]string{
		filepath.Join(dir, "missing", "r.json"): "cannot write '" + filepath.Join(dir, "missing", "r.json") + "': no such file or directory",
		dir:                                     "a directory, not a regular file (- writes to standard output)",
		"/dev/null":                             "'/dev/null': a character device, not a regular file",
		toDevice:                                "a character device, not a regular file",
		fifo:                                    "a named pipe, not a regular file",
		"/dev/stdout":                           "'/dev/stdout': a file descriptor's name, not a file (- writes to standard output)",
		"/proc/self/fd/1":                       "a file descriptor's name",
	} {
		_, err := CheckOutput(path)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("CheckOutput(%s) = %v, want %q", path, err, want)
		}
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Contains(strings.Join(names, " "), ".sysbench-go-check") || len(names) != 7 {
		t.Errorf("the directory holds %q, want the 7 files made", names)
	}
}

// A stream (the CSV series) goes to standard output unclosed, or to the
// file in place.
func TestOutputStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.csv")
	for _, p := range []string{"-", path} {
		o, err := CheckOutput(p)
		if err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		w, err := o.Create(&stdout)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("a,b\n"))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		got := stdout.String()
		if p != "-" {
			b, _ := os.ReadFile(path)
			got = string(b)
		}
		if got != "a,b\n" {
			t.Errorf("%s: %q", p, got)
		}
	}
}
