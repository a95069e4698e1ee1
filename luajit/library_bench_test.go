package luajit

import (
	"testing"

	lua "github.com/yuin/gopher-lua"
)

// BenchmarkLibraryCalls times the library calls workload scripts make on
// their hot paths (numbers to text, string.format, table.concat,
// patterns), each in a Lua loop of b.N iterations.
func BenchmarkLibraryCalls(b *testing.B) {
	for _, c := range []struct{ name, body string }{
		{"tostring-int", `local s = tostring(i)`},
		{"tostring-float", `local s = tostring(i * 0.25)`},
		{"format-d", `local s = string.format("%d", i)`},
		{"format-s", `local s = string.format("%s-%s", i, "x")`},
		{"format-f", `local s = string.format("%.2f", i * 0.25)`},
		{"concat-numbers", `local s = table.concat(t, ",")`},
		{"rep", `local s = string.rep("ab", 10)`},
		{"sub", `local s = ("hello world"):sub(2, 5)`},
		{"find-plain", `local s = ("hello world"):find("wor", 1, true)`},
		{"find-pattern", `local s = ("hello world"):find("w%a+")`},
		{"gsub", `local s = ("hello world"):gsub("o", "0")`},
		{"tonumber", `local n = tonumber("12345")`},
		{"upper", `local s = ("hello"):upper()`},
	} {
		b.Run(c.name, func(b *testing.B) {
			L := lua.NewState(lua.Options{SkipOpenLibs: true})
			defer L.Close()
			openLibs(L)
			openLuaJITLibs(L)
			fn, err := L.LoadString(`local n = ... local t = {1, 2.5, 3, 4, 5, 6, 7, 8, 9, 10}
for i = 1, n do ` + c.body + ` end`)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			if err := L.CallByParam(lua.P{Fn: fn, Protect: true}, lua.LNumber(b.N)); err != nil {
				b.Fatal(err)
			}
		})
	}
}
