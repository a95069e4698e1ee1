package luajit

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// inZone runs a test with Go's local time and luajit's TZ set to zone.
func inZone(t *testing.T, zone string) {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Skipf("time zone %s: %v", zone, err)
	}
	old := time.Local
	time.Local = loc
	t.Cleanup(func() { time.Local = old })
	t.Setenv("TZ", zone)
}

// TestOSLibrary checks os.date (glibc's strftime in the C locale), os.time
// and the rest of os against values recorded with luajit 2.1 in UTC.
func TestOSLibrary(t *testing.T) {
	inZone(t, "UTC")
	runLuaJITCases(t, []luajitCase{
		// os.date in UTC ("!"): glibc's strftime in the C locale
		{"os.date(\"!%Y-%m-%d %H:%M:%S\", 0), os.date(\"!%c\", 0)", "\"1970-01-01 00:00:00\", \"Thu Jan  1 00:00:00 1970\""},
		{"os.date(\"!%x %X %p %a %A %b %B %j %U %W %w %y %Z %%\", 86400*45)", "\"02/15/70 00:00:00 AM Sun Sunday Feb February 046 07 06 0 70 GMT %\""},
		{"os.date(\"!%D %e %F %g %G %h %I %k %l %n %r %R %t %T %u %V %C %z\", 1700000000)", "\"11/14/23 14 2023-11-14 23 2023 Nov 10 22 10 \\\n 10:13:20 PM 22:13 \\9 22:13:20 2 46 20 +0000\""},
		{"os.date(\"!%5Y|%-d|%_5d|%05e|%^a|%#A|%#p|%^B|%10A|%-10A|%010A|%Ey|%Oy|%Ea|%Q|%5Q|%\", 1700000000)", "\"02023|14|   14|00014|TUE|TUESDAY|pm|NOVEMBER|   Tuesday|   Tuesday|000Tuesday|23|23|%Ea|%Q|  %5Q|%\""},
		{"os.date(\"!\", 0), os.date(\"\", 0), os.date(\"!x%\", 0), os.date(\"!%Y\", \"100\")", "\"\", \"\", \"x%\", \"1970\""},
		{"os.date(\"!%Y\", 1e12), os.date(\"!%Y\", -1e10), os.date(\"!%Y\", 1e300), os.date(\"!%Y %C %y %G %g\", -62167219200)", "\"33658\", \"1653\", nil, \"0 0 00 -1 99\""},
		{"(function() local t = os.date(\"!*t\", 1700000000) return t.year, t.month, t.day, t.hour, t.min, t.sec, t.wday, t.yday, t.isdst end)()", "2023, 11, 14, 22, 13, 20, 3, 318, false"},
		{"os.date(\"!%Y\", \"x\")", "error: bad argument #2 to 'date' (number expected, got string)"},
		{"os.date({})", "error: bad argument #1 to 'date' (string expected, got table)"},
		// os.time of a table (the fields as mktime reads them; here in UTC)
		{"os.time({year = 2020, month = 1, day = 1, hour = 0}), os.time({year = 2020, month = 1, day = 1})", "1577836800, 1577880000"},
		{"os.time({year = 2020, month = 13, day = 1, hour = 0}), os.time({year = 2020, month = 1, day = 1, hour = 0, min = -30, sec = 3600.7})", "1609459200, 1577838600"},
		{"os.time({year = \"2020\", month = \"2\", day = \"3\"})", "1580731200"},
		{"os.time({year = 2020})", "error: field 'day' missing in date table"},
		{"os.time({})", "error: field 'day' missing in date table"},
		{"os.time(5)", "error: bad argument #1 to 'time' (table expected, got number)"},
		// the rest of os
		{"os.difftime(10, 5), os.difftime(10), os.difftime(\"10\", \"4\")", "5, 10, 6"},
		{"os.difftime()", "error: bad argument #1 to 'difftime' (number expected, got no value)"},
		{"os.getenv(\"SYSBENCH_GO_SURELY_UNSET\"), type(os.getenv(\"PATH\"))", "nil, \"string\""},
		{"os.getenv()", "error: bad argument #1 to 'getenv' (string expected, got no value)"},
		{"os.setlocale(), os.setlocale(\"C\"), os.setlocale(nil, \"numeric\"), os.setlocale(\"xx_YY\")", "\"C\", \"C\", \"C\", nil"},
		{"os.setlocale(\"C\", \"bad\")", "error: bad argument #2 to 'setlocale' (invalid option 'bad')"},
		{"type(os.clock()), os.clock() >= 0", "\"number\", true"},
		{"os.execute(\"exit 3\"), os.execute(), os.execute(\"true\")", "768, 1, 0"},
		{"(function() local n = os.tmpname() local ok = n:match(\"^/tmp/lua_%w%w%w%w%w%w$\") ~= nil and io.open(n) ~= nil os.remove(n) return ok end)()", "true"},
		{"os.remove()", "error: bad argument #1 to 'remove' (string expected, got no value)"},
		{"os.rename(\"x\")", "error: bad argument #2 to 'rename' (string expected, got no value)"},
	})
}

// TestOSLocalTime checks local time: zone names and offsets, %s, *t's
// isdst and os.time's isdst, recorded with luajit 2.1 in
// America/New_York.
func TestOSLocalTime(t *testing.T) {
	inZone(t, "America/New_York")
	runLuaJITCases(t, []luajitCase{
		// local time in America/New_York, across daylight saving time
		{"os.date(\"%c %Z %z %s\", 1700000000), os.date(\"%c %Z %z %s\", 1690000000)", "\"Tue Nov 14 17:13:20 2023 EST -0500 1700000000\", \"Sat Jul 22 00:26:40 2023 EDT -0400 1690000000\""},
		{"os.date(\"!%s\", 1700000000), os.date(\"!%s\", 1690000000)", "\"1700018000\", \"1690018000\""},
		{"(function() local t = os.date(\"*t\", 1690000000) return t.hour, t.isdst end)()", "0, true"},
		{"os.time({year = 2023, month = 7, day = 1, hour = 12}), os.time({year = 2023, month = 7, day = 1, hour = 12, isdst = false}), os.time({year = 2023, month = 7, day = 1, hour = 12, isdst = true})", "1688227200, 1688230800, 1688227200"},
		{"os.time({year = 2023, month = 1, day = 1, hour = 12, isdst = true}), os.time({year = 2023, month = 3, day = 12, hour = 2, min = 30})", "1672588800, 1678606200"},
		// (the hour that occurs twice: glibc's choice without isdst depends on its earlier calls)
		{"os.time({year = 2023, month = 11, day = 5, hour = 1, min = 30, isdst = false}), os.time({year = 2023, month = 11, day = 5, hour = 1, min = 30, isdst = true})", "1699165800, 1699162200"},
	})
}

// strftimeScript prints os.date of every conversion letter with glibc's
// flags, widths and modifiers, for several times in local time and UTC.
const strftimeScript = `
local convs = "aAbBcCdDeFgGhHIjklmMnpPrRsStTuUVwWxXyYzZ%Q+Ev"
local flags = {"", "_", "-", "0", "^", "#", "10", "_5", "-5", "05", "^#", "E", "O", "1", "3"}
local times = {0, 86400*45, 1700000000, -1e9, 1e10, 951782400, 1230768000, 1719792000, -62167219200, 253402300799, 1e12}
for _, t in ipairs(times) do
  for _, bang in ipairs{"", "!"} do
    for i = 1, #convs do
      for _, f in ipairs(flags) do
        local fmt = bang .. "%" .. f .. convs:sub(i, i)
        print(fmt, os.date(fmt, t))
      end
    end
  end
end
`

// TestStrftimeAgainstLuaJIT compares os.date with luajit's (glibc's
// strftime) over some 15000 formats in two time zones; it needs luajit.
func TestStrftimeAgainstLuaJIT(t *testing.T) {
	bin := testenv.Tool(t, "luajit", "apt-get install luajit")
	for _, zone := range []string{"Europe/Paris", "Asia/Kolkata"} {
		t.Run(zone, func(t *testing.T) {
			inZone(t, zone)
			cmd := exec.Command(bin, "-")
			cmd.Stdin = strings.NewReader(strftimeScript)
			want, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			L := newLuaJITState(t)
			if err := L.DoString(strftimeScript); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(testOutput(L), "\n")
			for i, w := range strings.Split(string(want), "\n") {
				if i >= len(got) || got[i] != w {
					t.Fatalf("line %d: ours %q, luajit %q", i+1, got[min(i, len(got)-1)], w)
				}
			}
		})
	}
}
