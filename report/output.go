package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stdout is the output path that stands for standard output.
const Stdout = "-"

// Output is a file a command writes: --results, --intervals-csv, report's
// --results, compare's reports. It is checked before anything runs and is
// one of two things:
//
//   - "-", standard output;
//   - a regular file, or a path where one can be made. A symbolic link is
//     followed: its target is written, the link stays.
//
// Anything else — a device, a FIFO, a socket, a directory, a file
// descriptor's name such as /dev/stdout — is refused: replacing it would
// destroy it, and writing into it would lose the atomic write.
type Output struct {
	Path string // as given
	file string // the regular file written: Path with its links followed
}

// CheckOutput checks path as an output: it must be "-", or lead (through
// symbolic links) to a regular file or to nothing in a directory this
// process can create files in. The error names the path and says why.
func CheckOutput(path string) (*Output, error) {
	if path == Stdout {
		return &Output{Path: path}, nil
	}
	file, err := regularTarget(path)
	if err == nil {
		err = checkCreate(filepath.Dir(file))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write '%s': %w", path, err)
	}
	return &Output{Path: path, file: file}, nil
}

// IsStdout says whether the output is standard output.
func (o *Output) IsStdout() bool { return o.file == "" }

// regularTarget follows path's symbolic links to the regular file (or the
// missing one) they lead to.
func regularTarget(path string) (string, error) {
	p := path
	for range 40 {
		if isDescriptorPath(p) {
			return "", errors.New("a file descriptor's name, not a file (- writes to standard output)")
		}
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", PathCause(err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return "", fmt.Errorf("%s, not a regular file (- writes to standard output)", fileKind(fi.Mode()))
			}
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", PathCause(err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", errors.New("too many levels of symbolic links")
}

// isDescriptorPath says whether p names an open file descriptor
// (/dev/stdout leads to /proc/self/fd/1): its target is whatever the
// descriptor is, which a rename would not reach.
func isDescriptorPath(p string) bool {
	p = filepath.Clean(p)
	if strings.HasPrefix(p, "/dev/fd/") {
		return true
	}
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	return len(parts) >= 2 && (parts[1] == "fd" || (len(parts) >= 4 && parts[1] == "task" && parts[3] == "fd"))
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// checkCreate fails when no file can be made in dir.
func checkCreate(dir string) error {
	f, err := os.CreateTemp(dir, ".sysbench-go-check.*")
	if err != nil {
		return PathCause(err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// WriteAtomic writes b as the whole output: to stdout, or to a temporary
// file beside the target renamed over it, so that a reader never sees half
// a document and a failed write leaves the old file as it was. A file it
// replaces keeps its permissions; a new one is made readable by all. The
// error says why, without the path.
func (o *Output) WriteAtomic(stdout io.Writer, b []byte) error {
	p, err := o.CreateAtomic(stdout)
	if err != nil {
		return err
	}
	if _, err := p.Write(b); err != nil {
		p.Abort()
		return err
	}
	return p.Commit()
}

// Pending is an output being written as a document is made (the results
// file of a long run, its intervals as they come), put in place whole by
// Commit: WriteAtomic's rule for a document too long to hold in memory.
// On standard output it is written as it comes.
type Pending struct {
	o    *Output
	w    io.Writer
	f    *os.File // the temporary file, nil on standard output
	mode fs.FileMode
}

// CreateAtomic opens the output for a document that Commit puts in place:
// a temporary file beside the target (which a run killed before the end
// leaves behind, with what it wrote), or standard output. The error says
// why, without the path.
func (o *Output) CreateAtomic(stdout io.Writer) (*Pending, error) {
	if o.IsStdout() {
		if stdout == nil {
			return nil, errors.New("standard output is not an output here")
		}
		return &Pending{o: o, w: stdout}, nil
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(o.file); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	f, err := os.CreateTemp(filepath.Dir(o.file), "."+filepath.Base(o.file)+".*")
	if err != nil {
		return nil, PathCause(err)
	}
	return &Pending{o: o, w: f, f: f, mode: mode}, nil
}

// Write writes b; the error says why, without the path.
func (p *Pending) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	return n, PathCause(err)
}

// Commit puts the document written in place of the target, or leaves the
// target as it was and removes the temporary file when that fails.
func (p *Pending) Commit() error {
	if p.f == nil {
		return nil
	}
	tmp := p.f.Name()
	err := p.f.Close()
	if err == nil {
		err = os.Chmod(tmp, p.mode)
	}
	if err == nil {
		err = os.Rename(tmp, p.o.file)
	}
	if err != nil {
		os.Remove(tmp)
		return PathCause(err)
	}
	return nil
}

// Abort drops what was written: the target stays as it was.
func (p *Pending) Abort() {
	if p.f != nil {
		p.f.Close()
		os.Remove(p.f.Name())
	}
}

// Create opens the output as a stream written as it is made (the CSV
// series): standard output, or the target file truncated and written in
// place, so that a killed run keeps what it wrote. Closing it does not
// close standard output.
func (o *Output) Create(stdout io.Writer) (io.WriteCloser, error) {
	if o.IsStdout() {
		if stdout == nil {
			return nil, errors.New("standard output is not an output here")
		}
		return nopCloser{stdout}, nil
	}
	f, err := os.Create(o.file)
	if err != nil {
		return nil, PathCause(err)
	}
	return f, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// WriteAtomic writes b to path as Output.WriteAtomic does, after the same
// checks; path may not be "-".
func WriteAtomic(path string, b []byte) error {
	if path == Stdout {
		return errors.New("standard output is not an output here")
	}
	o, err := CheckOutput(path)
	if err != nil {
		return errors.Unwrap(err)
	}
	return o.WriteAtomic(nil, b)
}
