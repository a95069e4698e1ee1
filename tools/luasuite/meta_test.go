package main

import (
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

func TestSplitInfo(t *testing.T) {
	tests := []struct {
		info, name, meta string
		mods             []string
	}{
		{"local lhs in key on lhs", "local lhs in key on lhs", "", nil},
		{"global !private_G", "global", " !private_G", []string{"private_G"}},
		{"pre-5.2 base +lua<5.2", "pre-5.2 base", " +lua<5.2", nil},
		{"Goto is not a keyword. -compat5.2 !lex !private_G", "Goto is not a keyword.", " -compat5.2 !lex !private_G", []string{"lex", "private_G"}},
		// A name with " +" in it: the metadata starts there, and holds no term.
		{"UREFO CSE for a.x + b.x, but not x", "UREFO CSE for a.x", " + b.x, but not x", nil},
		{"all in range [-3, 11]", "all in range [-3, 11]", "", nil},
		{"ffi +ffi", "ffi", " +ffi", nil},
	}
	for _, tt := range tests {
		name, meta, mods := splitInfo(tt.info)
		if name != tt.name || meta != tt.meta || !reflect.DeepEqual(mods, tt.mods) {
			t.Errorf("splitInfo(%q) = %q, %q, %q; want %q, %q, %q", tt.info, name, meta, mods, tt.name, tt.meta, tt.mods)
		}
	}
}

func TestWant(t *testing.T) {
	tags := luajit21Tags()
	tests := []struct {
		meta    string
		want    bool
		failing string
	}{
		{"", true, ""},
		{" +luajit>=2.1", true, ""},
		{" +luajit>=2.2", false, "+luajit>=2.2"},
		{" +luajit>=2", true, ""},
		{" -luajit==2.0", true, ""},
		{" -luajit", false, "-luajit"},
		{" +lua<5.2", true, ""},
		{" +lua>=5.2", false, "+lua>=5.2"},
		{" +compat5.2", false, "+compat5.2"},
		{" -compat5.2 !lex", true, ""},
		{" +fii +luajit>=2.1", false, "+fii"},
		{" +ffi +bit +jit +goto +hexfloat +table.new +fold +sink", true, ""},
		{" +slow", false, "+slow"},
		{" -windows", true, ""},
		{" + b.x, but not x", true, ""},
		{" ->", true, ""},
		// A comparison against a tag that is absent: the tag decides.
		{" +lua52<5.3", false, "+lua52<5.3"},
	}
	for _, tt := range tests {
		ok, failing, err := tags.Want(tt.meta)
		if err != nil || ok != tt.want || failing != tt.failing {
			t.Errorf("Want(%q) = %v, %q, %v; want %v, %q", tt.meta, ok, failing, err, tt.want, tt.failing)
		}
	}
	if _, _, err := tags.Want(" +luajit=2"); err == nil {
		t.Error("Want(+luajit=2): no error for a comparison the runner cannot read")
	}
}

func TestTagsApply(t *testing.T) {
	tags := luajit21Tags()
	if err := tags.Apply("+slow,-ffi"); err != nil {
		t.Fatal(err)
	}
	if ok, _, _ := tags.Want(" +slow"); !ok {
		t.Error("+slow did not turn slow on")
	}
	if ok, _, _ := tags.Want(" +ffi"); ok {
		t.Error("-ffi did not turn ffi off")
	}
	for _, bad := range []string{"slow", "+", "*x"} {
		if err := luajit21Tags().Apply(bad); err == nil {
			t.Errorf("Apply(%q): no error", bad)
		}
	}
}

// tagProbe computes, under a LuaJIT, the tags LuaJIT's runner derives
// from the implementation it runs on, one per line (name or name=value);
// jit.status() flags in upper case are CPU features, marked cpu:.
const tagProbe = `
local function say(s) io.write(s, "\n") end
say("lua=" .. _VERSION:match("%d+%.%d+"))
if table.pack then say("compat5.2") end
if loadstring("return 0xep+9") then say("hexfloat") end
if loadstring("goto x ::x::") then say("goto") end
for _, lib in ipairs{"bit", "ffi", "jit.profile", "table.new"} do
  if pcall(require, lib) then say(lib) end
end
say("luajit=" .. jit.version:match("%d+%.%d+"))
say(jit.arch:lower())
if jit.os ~= "Other" then say(jit.os:lower()) end
if jit.status() then say("jit") end
for _, f in ipairs{select(2, jit.status())} do
  say((f:upper() == f and "cpu:" or "") .. f:lower())
end
local abi = require("ffi").abi
for _, p in ipairs{"le", "be", "fpu", "softfp", "hardfp", "eabi"} do
  if abi(p) then say(p) end
end
if abi("win") then say("winabi") end
if abi("32bit") then say("abi32") end
if abi("64bit") then say("abi64") end
`

// TestTagsAreLuaJITs checks the fixed plan against the installed luajit:
// the tags its runner would compute, CPU features aside.
func TestTagsAreLuaJITs(t *testing.T) {
	luajit := testenv.Tool(t, "luajit", "apt-get install luajit")
	cmd := exec.Command(luajit, "-")
	cmd.Stdin = strings.NewReader(tagProbe)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("luajit: %v", err)
	}
	got := Tags{}
	for _, line := range strings.Fields(string(out)) {
		if strings.HasPrefix(line, "cpu:") {
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		got[name] = 1
		if ok {
			if got[name], err = strconv.ParseFloat(val, 64); err != nil {
				t.Fatalf("luajit printed %q", line)
			}
		}
	}
	if want := luajit21Tags(); got.String() != want.String() {
		t.Errorf("luajit's runner tags:\n  %s\nthe plan's:\n  %s", got, want)
	}
}
