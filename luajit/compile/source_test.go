package compile

import (
	"strings"
	"testing"
)

// TestShortSource: chunk names as LuaJIT shows them in messages.
func TestShortSource(t *testing.T) {
	long := strings.Repeat("b", 70) + "c"
	for _, c := range []struct{ name, want string }{
		{"=stdin", "stdin"},
		{"=" + long, long[:59]},
		{"@x.lua", "x.lua"},
		{"@" + strings.Repeat("b", 59), strings.Repeat("b", 59)},
		{"@" + long, "..." + long[len(long)-56:]},
		{"ab\rcd", `[string "ab..."]`},
		{"", `[string ""]`},
	} {
		if got := ShortSource(c.name); got != c.want {
			t.Errorf("ShortSource(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}
