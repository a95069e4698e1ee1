package luajit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	lua "github.com/yuin/gopher-lua"

	"github.com/sysbench-go/sysbench-go/luajit/number"
)

// The io library as LuaJIT 2.1 has it over C's stdio, in place of
// gopher-lua's: io.write and io.read use the default files io.output and
// io.input set; io.stdout is the run's output stream (so what a script
// writes interleaves with the reports); files are created 0666 less the
// umask and opened with every mode C's fopen takes ("r+b", "wb", "a+");
// read takes "*n", "*l", "*L", "*a" (with or without the '*') and byte
// counts; results and messages are LuaJIT's ("attempt to use a closed
// file", nil plus "name: No such file or directory" and the errno).
//
// Files are buffered as stdio buffers them, and flushed when closed, when
// a script reads after writing or seeks, and when the Lua state closes
// (State.Close), as C flushes its files at exit.

type fileKind uint8

const (
	fileRegular fileKind = iota
	filePipe
	fileStd
)

type vbufMode uint8

const (
	vbufFull vbufMode = iota
	vbufLine
	vbufNone
)

// luaFile is a FILE*: the file and its buffers.
type luaFile struct {
	kind   fileKind
	f      *os.File      // nil for io.stdout (out) and pipes
	out    io.Writer     // io.stdout: the run's output, resolved on first use
	pipeR  io.ReadCloser // io.popen(cmd, "r")
	pipeW  io.WriteCloser
	cmd    *exec.Cmd
	r      *bufio.Reader
	w      *bufio.Writer
	vbuf   vbufMode
	closed bool
	// readOnly: opened for reading only (stdio refuses writes with EBADF).
	readOnly bool
	// linesClose: io.lines(name) closes the file at its end.
	linesClose bool
}

// ioState is one Lua state's io library: its default files, the FILE*
// metatable and the files open, flushed when the state closes.
type ioState struct {
	meta          *lua.LTable
	input, output *lua.LUserData // the default files
	stdout        *luaFile
	open          map[*luaFile]struct{}
}

const ioKey = "sysbench-go.io"

func ioStateOf(L *lua.LState) *ioState {
	ud, ok := L.Get(lua.RegistryIndex).(*lua.LTable).RawGetString(ioKey).(*lua.LUserData)
	if !ok {
		L.RaiseError("io library missing")
	}
	return ud.Value.(*ioState)
}

// registerIO replaces gopher-lua's io library.
func registerIO(L *lua.LState) {
	st := &ioState{open: map[*luaFile]struct{}{}}
	reg := L.Get(lua.RegistryIndex).(*lua.LTable)
	ud := L.NewUserData()
	ud.Value = st
	reg.RawSetString(ioKey, ud)

	st.meta = L.CreateTable(0, 10)
	for name, fn := range map[string]lua.LGFunction{
		"close": fileClose, "flush": fileFlush, "lines": fileLines, "read": fileRead,
		"seek": fileSeek, "setvbuf": fileSetvbuf, "write": fileWrite,
		"__gc": fileGC, "__tostring": fileToString,
	} {
		st.meta.RawSetString(name, L.NewFunction(fn))
	}
	st.meta.RawSetString("__index", st.meta)
	reg.RawSetString("FILE*", st.meta)

	iot := L.CreateTable(0, 16)
	for name, fn := range map[string]lua.LGFunction{
		"close": ioClose, "flush": ioFlush, "input": ioInput, "lines": ioLines,
		"open": ioOpen, "output": ioOutput, "popen": ioPopen, "read": ioRead,
		"tmpfile": ioTmpfile, "type": ioType, "write": ioWrite,
	} {
		iot.RawSetString(name, L.NewFunction(fn))
	}
	st.stdout = &luaFile{kind: fileStd}
	st.input = newFileUD(L, st, &luaFile{kind: fileStd, f: os.Stdin, readOnly: true})
	st.output = newFileUD(L, st, st.stdout)
	iot.RawSetString("stdin", st.input)
	iot.RawSetString("stdout", st.output)
	iot.RawSetString("stderr", newFileUD(L, st, &luaFile{kind: fileStd, f: os.Stderr, vbuf: vbufNone}))
	L.SetGlobal("io", iot)
	SetLoaded(L, "io", iot)
}

func newFileUD(L *lua.LState, st *ioState, f *luaFile) *lua.LUserData {
	ud := L.NewUserData()
	ud.Value = f
	ud.Metatable = st.meta
	if f.kind != fileStd {
		st.open[f] = struct{}{}
	}
	return ud
}

// closeFiles flushes and closes the files a state left open.
func closeFiles(L *lua.LState) {
	reg, ok := L.Get(lua.RegistryIndex).(*lua.LTable)
	if !ok {
		return
	}
	ud, ok := reg.RawGetString(ioKey).(*lua.LUserData)
	if !ok {
		return
	}
	st := ud.Value.(*ioState)
	for f := range st.open {
		_ = f.close()
	}
	_ = st.stdout.flush()
}

// --- the file itself ---

func (f *luaFile) writer(L *lua.LState) io.Writer {
	switch {
	case f.f != nil:
		return f.f
	case f.pipeW != nil:
		return f.pipeW
	case f.kind == fileStd:
		if f.out == nil {
			f.out = Of(L).Out
		}
		return f.out
	}
	return nil
}

func (f *luaFile) reader() io.Reader {
	if f.f != nil {
		return f.f
	}
	if f.pipeR != nil {
		return f.pipeR
	}
	return nil
}

// readBuf makes f ready to read: written data flushed, a reader made.
func (f *luaFile) readBuf() (*bufio.Reader, error) {
	if err := f.flush(); err != nil {
		return nil, err
	}
	if f.r == nil {
		src := f.reader()
		if src == nil {
			return nil, syscall.EBADF
		}
		f.r = bufio.NewReader(src)
	}
	return f.r, nil
}

// dropReadAhead gives back to the file what the reader buffered, so the
// file position is where the script is.
func (f *luaFile) dropReadAhead() {
	if f.r == nil {
		return
	}
	if n := f.r.Buffered(); n > 0 && f.f != nil {
		_, _ = f.f.Seek(int64(-n), io.SeekCurrent)
	}
	f.r = nil
}

func (f *luaFile) write(L *lua.LState, b []byte) error {
	if f.readOnly {
		return syscall.EBADF
	}
	f.dropReadAhead()
	if f.kind == fileStd && f.f == nil {
		_, err := f.writer(L).Write(b) // the run's output does its own buffering
		return err
	}
	if f.w == nil {
		w := f.writer(L)
		if w == nil {
			return syscall.EBADF
		}
		f.w = bufio.NewWriter(w)
	}
	if _, err := f.w.Write(b); err != nil {
		return err
	}
	switch {
	case f.vbuf == vbufNone:
		return f.w.Flush()
	case f.vbuf == vbufLine && indexByte(string(b), '\n') >= 0:
		return f.w.Flush()
	}
	return nil
}

func (f *luaFile) flush() error {
	if f.w == nil {
		return nil
	}
	return f.w.Flush()
}

func (f *luaFile) close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	err := f.flush()
	switch {
	case f.cmd != nil:
		if f.pipeW != nil {
			_ = f.pipeW.Close()
		}
		if werr := f.cmd.Wait(); werr != nil && err == nil {
			var ee *exec.ExitError
			if !errors.As(werr, &ee) {
				err = werr
			}
		}
	case f.f != nil:
		if cerr := f.f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// --- results and checks ---

// fileResult is luaL_fileresult: true, or nil, "[name: ]message", errno.
func fileResult(L *lua.LState, err error, name string) int {
	if err == nil {
		L.Push(lua.LTrue)
		return 1
	}
	msg := strerror(err)
	if name != "" {
		msg = name + ": " + msg
	}
	L.Push(lua.LNil)
	L.Push(lua.LString(msg))
	L.Push(lua.LNumber(errnoOf(err)))
	return 3
}

// errnoOf is the C errno of err, 0 if it has none.
func errnoOf(err error) int {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return int(errno)
	}
	return 0
}

// toFileP is argument 1 as a FILE*, open or closed.
func toFileP(L *lua.LState) *luaFile {
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		if f, ok := ud.Value.(*luaFile); ok {
			return f
		}
	}
	typeError(L, 1, "FILE*")
	return nil
}

// toFile is argument 1 as an open FILE*.
func toFile(L *lua.LState) *luaFile {
	f := toFileP(L)
	if f.closed {
		LibError(L, "attempt to use a closed file")
	}
	return f
}

// openMode converts a C fopen mode as glibc reads it: r, w or a, then up
// to six characters of which '+' and 'x' count ("rb", "r+b", "wb+",
// "a+"); anything else is EINVAL.
func openMode(mode string) (int, bool) {
	if mode == "" {
		return 0, false
	}
	var flags int
	switch mode[0] {
	case 'r':
		flags = os.O_RDONLY
	case 'w':
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	case 'a':
		flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
	default:
		return 0, false
	}
	for i := 1; i < len(mode) && i < 7; i++ {
		switch mode[i] {
		case '+':
			flags = flags&^(os.O_RDONLY|os.O_WRONLY) | os.O_RDWR
		case 'x':
			flags |= os.O_EXCL
		case 0:
			return flags, true
		}
	}
	return flags, true
}

// openFile is fopen: 0666 less the umask for a new file.
func openFile(name, mode string) (*luaFile, error) {
	flags, ok := openMode(mode)
	if !ok {
		return nil, syscall.EINVAL
	}
	f, err := os.OpenFile(name, flags, 0o666)
	if err != nil {
		return nil, err
	}
	return &luaFile{f: f, readOnly: flags&(os.O_WRONLY|os.O_RDWR) == 0}, nil
}

// --- io.* ---

func ioOpen(L *lua.LState) int {
	name := CheckStr(L, 1)
	mode := optStr(L, 2, "r")
	f, err := openFile(name, mode)
	if err != nil {
		return fileResult(L, err, name)
	}
	L.Push(newFileUD(L, ioStateOf(L), f))
	return 1
}

// openArg opens argument 1 for io.lines, io.input and io.output, failing
// with "bad argument #1 to 'lines' (name: No such file or directory)".
func openArg(L *lua.LState, mode string) *lua.LUserData {
	name := CheckStr(L, 1)
	f, err := openFile(name, mode)
	if err != nil {
		argError(L, 1, name+": "+strerror(err))
	}
	return newFileUD(L, ioStateOf(L), f)
}

func ioPopen(L *lua.LState) int {
	cmdline := CheckStr(L, 1)
	mode := optStr(L, 2, "r")
	st := ioStateOf(L)
	for f := range st.open {
		_ = f.flush()
	}
	_ = st.stdout.flush()
	lf := &luaFile{kind: filePipe}
	cmd := exec.Command("/bin/sh", "-c", cmdline)
	cmd.Stderr = os.Stderr
	var err error
	switch mode {
	case "r", "re":
		cmd.Stdin = os.Stdin
		lf.pipeR, err = cmd.StdoutPipe()
	case "w", "we":
		cmd.Stdout = os.Stdout
		lf.pipeW, err = cmd.StdinPipe()
	default:
		err = syscall.EINVAL
	}
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return fileResult(L, err, cmdline)
	}
	lf.cmd = cmd
	L.Push(newFileUD(L, st, lf))
	return 1
}

// ioTmpfile is tmpfile(): a file open for update that is removed at once,
// so it disappears when closed.
func ioTmpfile(L *lua.LState) int {
	f, err := os.CreateTemp("", "lua_tmp")
	if err != nil {
		return fileResult(L, err, "")
	}
	_ = os.Remove(f.Name())
	L.Push(newFileUD(L, ioStateOf(L), &luaFile{f: f}))
	return 1
}

func ioClose(L *lua.LState) int {
	if L.GetTop() == 0 {
		f := ioStateOf(L).output.Value.(*luaFile)
		if f.closed {
			LibError(L, "attempt to use a closed file")
		}
		return closeResult(L, f)
	}
	return fileClose(L)
}

// stdFile is the default input or output, which must be open.
func stdFile(L *lua.LState, ud *lua.LUserData) *luaFile {
	f := ud.Value.(*luaFile)
	if f.closed {
		LibError(L, "standard file is closed")
	}
	return f
}

func ioRead(L *lua.LState) int {
	return readFile(L, stdFile(L, ioStateOf(L).input), 1)
}

func ioWrite(L *lua.LState) int {
	return writeFile(L, stdFile(L, ioStateOf(L).output), 1)
}

func ioFlush(L *lua.LState) int {
	return fileResult(L, stdFile(L, ioStateOf(L).output).flush(), "")
}

// ioInput and ioOutput set (to a file or a file name) or return the
// default input and output.
func ioInput(L *lua.LState) int  { return ioDefault(L, &ioStateOf(L).input, "r") }
func ioOutput(L *lua.LState) int { return ioDefault(L, &ioStateOf(L).output, "w") }

func ioDefault(L *lua.LState, which **lua.LUserData, mode string) int {
	if L.Get(1) != lua.LNil {
		if ud, ok := L.Get(1).(*lua.LUserData); ok {
			toFile(L)
			*which = ud
		} else {
			*which = openArg(L, mode)
		}
	}
	L.Push(*which)
	return 1
}

func ioLines(L *lua.LState) int {
	if L.Get(1) == lua.LNil {
		return linesIterator(L, ioStateOf(L).input, 2)
	}
	ud := openArg(L, "r")
	ud.Value.(*luaFile).linesClose = true
	return linesIterator(L, ud, 2)
}

func ioType(L *lua.LState) int {
	v := checkAny(L, 1)
	if ud, ok := v.(*lua.LUserData); ok {
		if f, ok := ud.Value.(*luaFile); ok {
			if f.closed {
				L.Push(lua.LString("closed file"))
			} else {
				L.Push(lua.LString("file"))
			}
			return 1
		}
	}
	L.Push(lua.LNil)
	return 1
}

// --- file methods ---

func fileClose(L *lua.LState) int {
	return closeResult(L, toFile(L))
}

func closeResult(L *lua.LState, f *luaFile) int {
	if f.kind == fileStd {
		L.Push(lua.LNil)
		L.Push(lua.LString("cannot close standard file"))
		return 2
	}
	err := f.close()
	delete(ioStateOf(L).open, f)
	return fileResult(L, err, "")
}

func fileFlush(L *lua.LState) int {
	return fileResult(L, toFile(L).flush(), "")
}

func fileRead(L *lua.LState) int {
	return readFile(L, toFile(L), 2)
}

func fileWrite(L *lua.LState) int {
	return writeFile(L, toFile(L), 2)
}

func fileLines(L *lua.LState) int {
	toFile(L)
	return linesIterator(L, L.Get(1).(*lua.LUserData), 2)
}

// fileSeek is file:seek([whence [, offset]]): the new position from the
// start, or nil, message, errno.
func fileSeek(L *lua.LState) int {
	f := toFile(L)
	whence := checkOption(L, 2, "cur", "set", "cur", "end")
	var off int64
	switch v := L.Get(3).(type) {
	case lua.LNumber:
		off = f2i64(float64(v))
	case *lua.LNilType:
	default: // a numeric string too, in LuaJIT 2.1.0-beta3
		typeError(L, 3, "number")
	}
	if err := f.flush(); err != nil {
		return fileResult(L, err, "")
	}
	if f.f == nil {
		return fileResult(L, syscall.ESPIPE, "")
	}
	if f.r != nil {
		if whence == io.SeekCurrent {
			off -= int64(f.r.Buffered())
		}
		f.r = nil
	}
	pos, err := f.f.Seek(off, whence)
	if err != nil {
		return fileResult(L, err, "")
	}
	L.Push(lua.LNumber(pos))
	return 1
}

func fileSetvbuf(L *lua.LState) int {
	f := toFile(L)
	mode := checkOption(L, 2, "", "full", "line", "no")
	optInt(L, 3, 4096)
	if err := f.flush(); err != nil {
		return fileResult(L, err, "")
	}
	f.vbuf = vbufMode(mode)
	return fileResult(L, nil, "")
}

func fileGC(L *lua.LState) int {
	if f := toFileP(L); !f.closed && f.kind != fileStd {
		_ = f.close()
	}
	return 0
}

func fileToString(L *lua.LState) int {
	ud, _ := L.Get(1).(*lua.LUserData)
	f := toFileP(L)
	if f.closed {
		L.Push(lua.LString("file (closed)"))
	} else {
		L.Push(lua.LString(fmt.Sprintf("file (%p)", unsafe.Pointer(ud))))
	}
	return 1
}

// --- reading and writing ---

// writeFile writes arguments first.. (strings, numbers as tostring writes
// them) and returns true, or nil, message, errno.
func writeFile(L *lua.LState, f *luaFile, first int) int {
	var err error
	var num []byte
	for i := first; i <= L.GetTop(); i++ {
		var b []byte
		switch v := L.Get(i).(type) {
		case lua.LString:
			b = unsafe.Slice(unsafe.StringData(string(v)), len(v))
		case lua.LNumber:
			num = number.Append(num[:0], float64(v))
			b = num
		default:
			typeError(L, i, "string")
		}
		if err == nil && len(b) > 0 {
			err = f.write(L, b)
		}
	}
	return fileResult(L, err, "")
}

// readFile reads with the formats in arguments first.. (a line when
// there are none) and returns what each gives; a format that finds
// nothing gives nil and ends the reading.
func readFile(L *lua.LState, f *luaFile, first int) int {
	r, err := f.readBuf()
	if err != nil {
		return fileResult(L, err, "")
	}
	nargs := L.GetTop() - first + 1
	if nargs <= 0 {
		v, _, err := readLine(r, true)
		if err != nil {
			return fileResult(L, err, "")
		}
		L.Push(v)
		return 1
	}
	n := 0
	for i := first; i < first+nargs; i++ {
		var v lua.LValue
		var ok bool
		switch x := L.Get(i).(type) {
		case lua.LString:
			p := string(x)
			if p != "" && p[0] == '*' {
				p = p[1:]
			}
			switch {
			case p != "" && p[0] == 'n':
				v, ok, err = readNumber(r)
			case p != "" && (p[0] == 'l' || p[0] == 'L'):
				v, ok, err = readLine(r, p[0] == 'l')
			case p != "" && p[0] == 'a':
				var b []byte
				b, err = io.ReadAll(r)
				v, ok = lua.LString(b), true
			default:
				argError(L, i, "invalid format")
			}
		case lua.LNumber:
			v, ok, err = readCount(r, int(checkInt(L, i)))
		default:
			argError(L, i, "invalid option")
		}
		if err != nil {
			return fileResult(L, err, "")
		}
		n++
		if !ok {
			L.Push(lua.LNil)
			break
		}
		L.Push(v)
	}
	return n
}

// readLine reads a line, without its newline when chop; ok is false at
// the end of the file.
func readLine(r *bufio.Reader, chop bool) (lua.LValue, bool, error) {
	b, err := r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		line := append([]byte(nil), b...)
		for err == bufio.ErrBufferFull {
			b, err = r.ReadSlice('\n')
			line = append(line, b...)
		}
		b = line
	}
	if err != nil && err != io.EOF {
		return lua.LNil, false, err
	}
	if len(b) == 0 {
		return lua.LNil, false, nil
	}
	if chop && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return lua.LString(b), true, nil
}

// readCount reads up to n bytes; with n 0 it tells whether the file is at
// its end ("" or nil).
func readCount(r *bufio.Reader, n int) (lua.LValue, bool, error) {
	if n <= 0 {
		_, err := r.Peek(1)
		if err == io.EOF {
			return lua.LNil, false, nil
		}
		return lua.LString(""), err == nil, ignoreEOF(err)
	}
	b := make([]byte, n)
	got, err := io.ReadFull(r, b)
	if got == 0 {
		return lua.LNil, false, ignoreEOF(err)
	}
	return lua.LString(b[:got]), true, nil
}

func ignoreEOF(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil
	}
	return err
}

// readNumber is fscanf("%lf"): white space skipped, then the longest text
// that can begin a number (decimal, hex, inf, nan) consumed, then
// converted; text that does not make a number gives nil.
func readNumber(r *bufio.Reader) (lua.LValue, bool, error) {
	c, err := r.ReadByte()
	for err == nil && isSpace(c) {
		c, err = r.ReadByte()
	}
	if err != nil {
		return lua.LNil, false, ignoreEOF(err)
	}
	var text []byte
	accept := func(ok bool) bool {
		if !ok {
			return false
		}
		text = append(text, c)
		c, err = r.ReadByte()
		return err == nil
	}
	more := true
	if c == '+' || c == '-' {
		more = accept(true)
	}
	hex := false
	switch {
	case more && (c|0x20 == 'i' || c|0x20 == 'n'):
		for more && len(text) < 12 && isAlpha(c) {
			more = accept(true)
		}
	case more:
		if c == '0' {
			if more = accept(true); more && c|0x20 == 'x' {
				hex = true
				more = accept(true)
			}
		}
		digit := func(c byte) bool { return c >= '0' && c <= '9' || hex && digitValue(c) < 16 }
		for more && digit(c) {
			more = accept(true)
		}
		if more && c == '.' {
			more = accept(true)
			for more && digit(c) {
				more = accept(true)
			}
		}
		if more && (!hex && c|0x20 == 'e' || hex && c|0x20 == 'p') {
			more = accept(true)
			if more && (c == '+' || c == '-') {
				more = accept(true)
			}
			for more && c >= '0' && c <= '9' {
				more = accept(true)
			}
		}
	}
	if more {
		_ = r.UnreadByte()
	} else if err != nil && err != io.EOF {
		return lua.LNil, false, err
	}
	// The text read may end in what does not complete a number ("1e",
	// "0x"): like glibc, the value is its longest prefix that is one.
	for n := len(text); n > 0; n-- {
		if v, ok := number.Parse(string(text[:n])); ok {
			return lua.LNumber(v), true, nil
		}
	}
	return lua.LNil, false, nil
}

// linesIterator returns the iterator of io.lines and file:lines over the
// file ud, reading with the formats from argument first on.
func linesIterator(L *lua.LState, ud *lua.LUserData, first int) int {
	formats := make([]lua.LValue, 0, max(L.GetTop()-first+1, 0))
	for i := first; i <= L.GetTop(); i++ {
		formats = append(formats, L.Get(i))
	}
	L.Push(L.NewFunction(func(L *lua.LState) int {
		f := ud.Value.(*luaFile)
		if f.closed {
			LibError(L, "attempt to use a closed file")
		}
		L.SetTop(0)
		for _, v := range formats {
			L.Push(v)
		}
		n := readFile(L, f, 1)
		first := L.Get(len(formats) + 1)
		if n == 3 && first == lua.LNil {
			if msg, ok := L.Get(-2).(lua.LString); ok {
				LibError(L, string(msg))
			}
		}
		if first == lua.LNil && f.linesClose {
			_ = f.close()
			delete(ioStateOf(L).open, f)
			return 0
		}
		return n
	}))
	return 1
}
