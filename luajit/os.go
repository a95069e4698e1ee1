package luajit

import (
	"crypto/rand"
	"errors"
	"math"
	"os"
	"os/exec"
	"syscall"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// registerOS gives the os library LuaJIT 2.1's functions in place of
// gopher-lua's: os.date with every conversion of glibc's strftime in the
// C locale (date.go), os.time of a table as C's mktime, os.clock as the
// process's CPU time, os.execute's wait status, os.tmpname as mkstemp,
// remove and rename with C's messages, setlocale that knows only "C".
// gopher-lua's os.setenv is not LuaJIT's and goes.
func registerOS(L *lua.LState) {
	ost, ok := L.GetGlobal("os").(*lua.LTable)
	if !ok {
		return
	}
	ost.RawSetString("setenv", lua.LNil)
	for name, fn := range map[string]lua.LGFunction{
		"clock":     osClock,
		"date":      osDate,
		"difftime":  osDifftime,
		"execute":   osExecute,
		"exit":      osExit,
		"getenv":    osGetenv,
		"remove":    osRemove,
		"rename":    osRename,
		"setlocale": osSetlocale,
		"time":      osTime,
		"tmpname":   osTmpname,
	} {
		ost.RawSetString(name, L.NewFunction(fn))
	}
}

// osClock is C's clock(): the CPU time of the whole process, in seconds.
func osClock(L *lua.LState) int {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	L.Push(lua.LNumber(cpu.Seconds()))
	return 1
}

func osGetenv(L *lua.LState) int {
	if v, ok := os.LookupEnv(CheckStr(L, 1)); ok {
		L.Push(lua.LString(v))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

func osDifftime(L *lua.LState) int {
	a := f2i64(checkNum(L, 1))
	b := f2i64(optNum(L, 2, 0))
	L.Push(lua.LNumber(float64(a) - float64(b)))
	return 1
}

// osExecute is C's system(): the wait status (exit code * 256, or the
// signal number), and with no command whether a shell exists (1).
func osExecute(L *lua.LState) int {
	if L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(1))
		return 1
	}
	cmd := exec.Command("/bin/sh", "-c", CheckStr(L, 1))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		L.Push(lua.LNumber(0))
	case errors.As(err, &ee):
		ws, _ := ee.Sys().(syscall.WaitStatus)
		L.Push(lua.LNumber(int(ws)))
	default:
		L.Push(lua.LNumber(127 << 8)) // the shell could not run
	}
	return 1
}

// osExit ends the process as C's exit(): the state's files flushed,
// status true as 0 and false as 1.
func osExit(L *lua.LState) int {
	status := 0
	switch v := L.Get(1).(type) {
	case lua.LBool:
		if !v {
			status = 1
		}
	default:
		status = int(optInt(L, 1, 0))
	}
	closeFiles(L)
	os.Exit(status)
	return 0
}

// osRemove is C's remove(): a file, or an empty directory.
func osRemove(L *lua.LState) int {
	name := CheckStr(L, 1)
	err := syscall.Unlink(name)
	if err == syscall.EISDIR {
		err = syscall.Rmdir(name)
	}
	return fileResult(L, errOrNil(err), name)
}

func osRename(L *lua.LState) int {
	from := CheckStr(L, 1)
	to := CheckStr(L, 2)
	return fileResult(L, errOrNil(syscall.Rename(from, to)), from)
}

// errOrNil keeps a nil syscall error a nil error interface.
func errOrNil(err error) error {
	if err == nil {
		return nil
	}
	return err
}

// osTmpname is mkstemp("/tmp/lua_XXXXXX"): a new empty file's name.
func osTmpname(L *lua.LState) int {
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	for range 100 {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := []byte("/tmp/lua_")
		for _, c := range b {
			name = append(name, letters[int(c)%len(letters)])
		}
		f, err := os.OpenFile(string(name), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_ = f.Close()
			L.Push(lua.LString(name))
			return 1
		}
		if !errors.Is(err, os.ErrExist) {
			break
		}
	}
	LibError(L, "unable to generate a unique filename")
	return 0
}

// osSetlocale knows the C locale only: setlocale() and setlocale("C" or
// "POSIX" or "") answer "C", any other locale nil.
func osSetlocale(L *lua.LState) int {
	loc := optStr(L, 1, "")
	checkOption(L, 2, "all", "ctype", "numeric", "time", "collate", "monetary", "all")
	switch {
	case L.Get(1) == lua.LNil, loc == "C", loc == "POSIX", loc == "":
		L.Push(lua.LString("C"))
	default:
		L.Push(lua.LNil)
	}
	return 1
}

// osTime is os.time([t]): now, or the fields of t as C's mktime reads
// them (local time; out-of-range fields carried over; hour 12, min and
// sec 0 when missing; day, month and year required).
func osTime(L *lua.LState) int {
	if L.Get(1) == lua.LNil {
		L.Push(lua.LNumber(time.Now().Unix()))
		return 1
	}
	t := checkTab(L, 1)
	field := func(key string, def int) int {
		v := L.GetField(t, key)
		if n, ok := numberOperand(v); ok {
			return int(f2i32(n))
		}
		if def < 0 {
			LibError(L, "field '"+key+"' missing in date table")
		}
		return def
	}
	sec := field("sec", 0)
	minute := field("min", 0)
	hour := field("hour", 12)
	day := field("day", -1)
	month := field("month", -1)
	year := field("year", -1)
	isdst := -1
	if v := L.GetField(t, "isdst"); v != lua.LNil {
		isdst = 0
		if lua.LVAsBool(v) {
			isdst = 1
		}
	}
	L.Push(lua.LNumber(mktime(year, month, day, hour, minute, sec, isdst)))
	return 1
}

// mktime is C's mktime of broken-down local time. With isdst 0 or 1 the
// fields are read in standard or daylight time, as C does.
func mktime(year, month, day, hour, minute, sec, isdst int) int64 {
	t := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.Local)
	utc := time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC)
	if isdst < 0 {
		if w := t.In(time.Local); w.Hour() != utc.Hour() || w.Minute() != utc.Minute() || w.Day() != utc.Day() {
			// A time the clocks skip: C reads it in the offset before.
			_, before := time.Unix(t.Unix()-86400, 0).In(time.Local).Zone()
			return utc.Unix() - int64(before)
		}
		return t.Unix()
	}
	_, jan := time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.Local).Zone()
	_, jul := time.Date(t.Year(), 7, 1, 0, 0, 0, 0, time.Local).Zone()
	if jan == jul {
		return t.Unix()
	}
	off := min(jan, jul) // standard time
	if isdst > 0 {
		off = max(jan, jul)
	}
	return utc.Unix() - int64(off)
}

// osDate is os.date([format [, time]]): "!" for UTC, "*t" for a table,
// else strftime's text; nil for a time C cannot break down.
func osDate(L *lua.LState) int {
	format := optStr(L, 1, "%c")
	now := time.Now().Unix()
	if L.Get(2) != lua.LNil {
		now = f2i64(checkNum(L, 2))
	}
	utc := len(format) > 0 && format[0] == '!'
	if utc {
		format = format[1:]
	}
	tm, ok := brokenDown(now, utc)
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	if format == "*t" {
		t := L.CreateTable(0, 9)
		for k, v := range map[string]int{
			"sec": tm.Second(), "min": tm.Minute(), "hour": tm.Hour(), "day": tm.Day(),
			"month": int(tm.Month()), "year": tm.Year(), "wday": int(tm.Weekday()) + 1, "yday": tm.YearDay(),
		} {
			t.RawSetString(k, lua.LNumber(v))
		}
		t.RawSetString("isdst", lua.LBool(!utc && tm.IsDST()))
		L.Push(t)
		return 1
	}
	L.Push(lua.LString(strftime(nil, format, tm, utc)))
	return 1
}

// brokenDown is gmtime or localtime of t: false when the year does not
// fit C's int, as glibc fails then.
func brokenDown(t int64, utc bool) (time.Time, bool) {
	const maxYear = math.MaxInt32 + 1900
	// A year is at most 366 days: beyond this, the year cannot fit.
	if t > maxYear*366*86400 || t < -maxYear*366*86400 {
		return time.Time{}, false
	}
	tm := time.Unix(t, 0)
	if utc {
		tm = tm.UTC()
	} else {
		tm = tm.Local()
	}
	if y := int64(tm.Year()) - 1900; y > math.MaxInt32 || y < math.MinInt32 {
		return time.Time{}, false
	}
	return tm, true
}
