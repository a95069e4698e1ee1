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

// Format is what an output holds. A file name with an extension promises
// a format (x.csv, x.txt): an output is written only under a name that
// promises its own format or none, so that a name never says one thing
// while the file holds another.
type Format struct {
	Name string // as a reader says it: "JSON"
	Ext  string // the extension that promises it: ".json"
}

// The formats of the outputs.
var (
	JSON = Format{Name: "JSON", Ext: ".json"}
	CSV  = Format{Name: "CSV", Ext: ".csv"}
)

// promised are the formats that extensions a benchmark's outputs meet
// promise, for the refusal to say.
var promised = map[string]string{
	".json": "JSON", ".jsonl": "JSON lines", ".ndjson": "JSON lines", ".csv": "CSV", ".tsv": "tab-separated values",
	".txt": "text", ".text": "text", ".log": "text", ".out": "text", ".md": "Markdown", ".html": "HTML", ".htm": "HTML",
	".xml": "XML", ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML", ".prom": "Prometheus text", ".lua": "Lua",
	".sql": "SQL", ".db": "a database", ".sqlite": "a database", ".svg": "SVG", ".png": "PNG", ".pdf": "PDF",
	".gz": "gzip", ".zst": "zstd", ".xz": "xz", ".bz2": "bzip2", ".zip": "zip", ".tar": "tar",
}

// extension is the extension of path's file name that promises a format:
// none for a name without one, a dot file's own name (.results) or a
// number (run.3, as a shell loop names rounds).
func extension(path string) string {
	base := strings.TrimLeft(filepath.Base(path), ".")
	ext := filepath.Ext(base)
	if ext == "" || strings.Trim(ext[1:], "0123456789") == "" {
		return ""
	}
	return ext
}

// CheckFormat refuses a path whose extension promises another format than
// f: x.csv for JSON. "-", a name without an extension and one with f's
// take f.
func CheckFormat(path string, f Format) error {
	ext := extension(path)
	if path == Stdout || ext == "" || strings.EqualFold(ext, f.Ext) {
		return nil
	}
	if what, ok := promised[strings.ToLower(ext)]; ok {
		return fmt.Errorf("cannot write %s to '%s': its name promises %s (name it %s, or with no extension)", f.Name, path, what, f.Ext)
	}
	return fmt.Errorf("cannot write %s to '%s': its extension %s is not %s (name it %s, or with no extension)", f.Name, path, ext, f.Ext, f.Ext)
}

// CheckOutputAs is CheckOutput for an output of format f (CheckFormat).
func CheckOutputAs(path string, f Format) (*Output, error) {
	if err := CheckFormat(path, f); err != nil {
		return nil, err
	}
	return CheckOutput(path)
}

// Input is a file a command reads, said in the refusal to write over it.
type Input struct {
	Path string
	What string // "a results file", "the script"
}

// Overwrites refuses an output that would write one of the command's
// inputs: the same file by any name (a symbolic link, ./x, a hard link).
// The error names the output and the input.
func (o *Output) Overwrites(inputs []Input) error {
	for _, in := range inputs {
		if in.Path == "" || !o.Is(in.Path) {
			continue
		}
		if in.Path == o.Path {
			return fmt.Errorf("cannot write '%s': it is %s this command reads", o.Path, in.What)
		}
		return fmt.Errorf("cannot write '%s': it is '%s', %s this command reads", o.Path, in.Path, in.What)
	}
	return nil
}

// Is says whether the output writes the file at path, whatever the names:
// the same file once both exist, else the same place once their
// directories' links are followed.
func (o *Output) Is(path string) bool {
	if o.IsStdout() || path == Stdout {
		return o.IsStdout() && path == Stdout
	}
	a, errA := os.Stat(o.file)
	b, errB := os.Stat(path)
	if errA == nil && errB == nil {
		return os.SameFile(a, b)
	}
	if errA == nil || errB == nil {
		return false // one exists, the other not
	}
	target, err := regularTarget(path)
	if err != nil {
		return false
	}
	return placeOf(o.file) == placeOf(target)
}

// placeOf is a path not yet made as an absolute one, its directory's
// links followed.
func placeOf(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.Join(dir, filepath.Base(abs))
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
