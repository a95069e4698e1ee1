package luajit

import (
	"os"
	"syscall"
	"testing"
)

// TestIOLibrary runs files through the io library (and os.remove/rename)
// and compares with luajit 2.1's output: fopen modes, messages and errno,
// read formats, seek, buffering between reads and writes, io.output and
// io.input, io.lines, popen, tmpfile.
func TestIOLibrary(t *testing.T) {
	checkScript(t, ioScript, ioWant)
}

const ioScript = `local P = DIR .. "/f1"
print(io.open(DIR .. "/nonexistent/x", "r"))
print(io.open(P, "rw"))
print(io.open(P, "q"))
print(io.open(P, ""))
local f = assert(io.open(P, "w")) print(io.type(f), tostring(f):match("^file %(0x%x+%)$") ~= nil)
print(f:write("12 3.5 0x10 abc\nline2\n\nlast", 7, " ", 1.5))
print(f:seek("cur"), f:seek("set", 3), f:seek("end"), f:seek("cur", -2))
print(pcall(f.seek, f, "set", "1"))
print(pcall(f.seek, f, "bad"))
print(pcall(f.seek, f, "set", {}))
f:close() print(io.type(f), tostring(f), pcall(f.write, f, "x"))
print(io.type(io.stdout), io.type(42), pcall(io.type))
local f = io.open(P) print(f:read("*n", "*n", "*n", "*n"))
print(f:read("*l")) print(f:read("l", "L", "*a")) print(f:read("*a"), f:read("*l"), f:read(0), f:read(5))
print(pcall(f.read, f, "*x")) print(pcall(f.read, f, {}))
f:close()
for l in io.lines(P) do io.write("[", l, "]") end print()
for a, b in io.lines(P, 2, "*l") do io.write("<", a, "|", tostring(b), ">") end print()
local f = io.open(P) for l in f:lines() do io.write(l:len(), " ") end print(io.type(f)) f:close()
print(pcall(io.lines, DIR .. "/nonexistent"))
print(io.close(io.open(P)))
print(io.stdout:close())
print(pcall(io.stdout.write, 1))
print(pcall(io.write, {}))
local f = io.open(P, "r+b") print(f:read(2), f:write("ZZ"), f:seek("set"), f:read("*l")) f:close()
local f = io.open(P, "a+") print(f:read("*l"), f:write("APP"), f:seek("set"), f:read("*a")) f:close()
local f = io.open(P, "w+") print(f:write("abc"), f:seek("set", 1), f:read(1), f:read("*a")) f:close()
local f = io.open(P, "rb") print(f:write("x")) f:close()
print(pcall(io.stdout.setvbuf, io.stdout, "bad"))
print(io.output() == io.stdout, io.input() == io.stdin)
local f = io.open(DIR .. "/f3", "w") print(io.output(f) == f) io.write("to file ", 1) io.output(io.stdout) f:close() print(io.open(DIR .. "/f3"):read("*a"))
io.output(DIR .. "/f4") io.write("named") print(io.close()) io.output(io.stdout) print(io.open(DIR .. "/f4"):read("*a"))
print(pcall(io.output, DIR .. "/nonexistent/x"))
local f = io.open(DIR .. "/f4") io.input(f) print(io.read("*a")) io.input(io.stdin) f:close()
print(pcall(io.input, f))
local f = io.tmpfile() print(io.type(f), f:write("t"), f:seek("set"), f:read("*a")) f:close()
local p = io.popen("echo hi") print(p:read("*a"), p:close())
local p = io.popen("cat > " .. DIR .. "/f5", "w") p:write("piped") p:close() print(io.open(DIR .. "/f5"):read("*a"))
print(os.remove(DIR .. "/nonexistent"))
print(os.rename(DIR .. "/nonexistent", DIR .. "/y"))
print(os.remove(DIR .. "/f5"), io.open(DIR .. "/f5"))
os.execute("mkdir " .. DIR .. "/d") print(os.remove(DIR .. "/d"), os.remove(DIR .. "/d"))
print(os.rename(DIR .. "/f4", DIR .. "/f6"), io.open(DIR .. "/f6"):read("*a"))
local f = io.open(DIR .. "/n", "w") f:write("  -1.5e3 0x1p4 inf 1e 5") f:close()
local f = io.open(DIR .. "/n") print(f:read("*n", "*n", "*n")) print(f:read("*n")) print(f:read("*a")) f:close()
`

const ioWant = `nil	DIR/nonexistent/x: No such file or directory	2
nil	DIR/f1: No such file or directory	2
nil	DIR/f1: Invalid argument	22
nil	DIR/f1: Invalid argument	22
file	true
true
32	3	32	30
false	bad argument #3 to '?' (number expected, got string)
false	bad argument #2 to '?' (invalid option 'bad')
false	bad argument #3 to '?' (number expected, got table)
closed file	file (closed)	false	attempt to use a closed file
file	nil	false	bad argument #1 to '?' (value expected)
12	3.5	16	nil
abc
line2	
	last7 1.5
	nil	nil	nil
false	bad argument #2 to '?' (invalid format)
false	bad argument #2 to '?' (invalid option)
[12 3.5 0x10 abc][line2][][last7 1.5]
<12| 3.5 0x10 abc><li|ne2><
l|ast7 1.5>
15 5 0 9 file
false	bad argument #1 to '?' (DIR/nonexistent: No such file or directory)
true
nil	cannot close standard file
false	bad argument #1 to '?' (FILE* expected, got number)
false	bad argument #1 to '?' (string expected, got table)
12	true	0	12ZZ.5 0x10 abc
12ZZ.5 0x10 abc	true	0	12ZZ.5 0x10 abc
line2

last7 1.5APP
true	1	b	c
nil	Bad file descriptor	9
false	bad argument #2 to '?' (invalid option 'bad')
true	true
true
to file 1
true
named
false	bad argument #1 to '?' (DIR/nonexistent/x: No such file or directory)
named
false	attempt to use a closed file
file	true	0	t
hi
	true
piped
nil	DIR/nonexistent: No such file or directory	2
nil	DIR/nonexistent: No such file or directory	2
true	nil	DIR/f5: No such file or directory	2
true	nil	DIR/d: No such file or directory	2
true	named
-1500	16	inf
1
 5
`

// TestIOOpenUmask: a file io.open creates has mode 0666 less the umask,
// as fopen's (gopher-lua's was 0600).
func TestIOOpenUmask(t *testing.T) {
	mask := syscall.Umask(0o027)
	defer syscall.Umask(mask)
	dir := t.TempDir()
	L := newLuaJITState(t)
	if err := L.DoString(`assert(io.open(` + strconvQuote(dir+"/new") + `, "wb")):close()`); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(dir + "/new")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o640 {
		t.Errorf("mode %o, want 640 (0666 less umask 027)", got)
	}
}
