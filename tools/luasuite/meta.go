package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Tags are the features of the Lua implementation a test plan is made
// for, named as LuaJIT's test runner (test/test.lua) names them: a tag is
// present or absent, and a few carry a version number (lua, luajit).
type Tags map[string]float64

// luajit21Tags are the tags LuaJIT 2.1's runner computes for itself on
// x86-64 Linux with the JIT on: the plan of the reference, which every
// implementation then runs. CPU feature flags (SSE3, BMI2...) are left
// out: no test asks for them, and they depend on the machine.
func luajit21Tags() Tags {
	t := Tags{"lua": 5.1, "luajit": 2.1}
	for _, name := range []string{
		"hexfloat", "goto", // syntax
		"bit", "ffi", "jit.profile", "table.new", // libraries
		"x64", "linux", "jit", // jit.arch, jit.os, jit.status()
		"fold", "cse", "dce", "fwd", "dse", "narrow", "loop", "abc", "sink", "fuse", // JIT optimisations
		"le", "fpu", "hardfp", "abi64", // ffi.abi
	} {
		t[name] = 1
	}
	return t
}

// Apply turns tags on or off from a command line list such as
// "+slow,-ffi", as the runner's own +tag / -tag arguments do.
func (t Tags) Apply(list string) error {
	for _, item := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		if len(item) < 2 || (item[0] != '+' && item[0] != '-') {
			return fmt.Errorf("tag %q: want +name or -name", item)
		}
		if item[0] == '+' {
			t[item[1:]] = 1
		} else {
			delete(t, item[1:])
		}
	}
	return nil
}

// String lists the tags sorted, versions as name=value.
func (t Tags) String() string {
	var names []string
	for name, v := range t {
		if v != 1 {
			name += "=" + strconv.FormatFloat(v, 'g', -1, 64)
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// metaStart finds where an entry's metadata begins (the runner's
// ` +[-+@!]`): what comes before it is the entry's name.
var metaStart = regexp.MustCompile(` +[-+@!]`)

// condition is one +tag / -tag term of metadata with an optional
// comparison (`+luajit>=2.1`), matched as the runner matches them.
var condition = regexp.MustCompile(`([+-])([^ <>=]+)([<>=0-9.]*)`)

// modifier is a !name term of metadata (`!private_G`).
var modifier = regexp.MustCompile(`!([^ ]+)`)

// comparison splits a condition's comparison into operator and number.
var comparison = regexp.MustCompile(`^(<=|>=|==|<|>)([0-9.]+)$`)

// splitInfo parses an index line or a block marker's text into the
// entry's name, its metadata (empty when none) and its modifiers.
func splitInfo(info string) (name, meta string, modifiers []string) {
	loc := metaStart.FindStringIndex(info)
	if loc == nil {
		return info, "", nil
	}
	name, meta = info[:loc[0]], info[loc[0]:]
	// The runner collects modifiers from the whole text once it has
	// metadata; so do we, to refuse the same unknown ones.
	for _, m := range modifier.FindAllStringSubmatch(info, -1) {
		modifiers = append(modifiers, m[1])
	}
	return name, meta, modifiers
}

// Want reports whether metadata selects an entry under tags, and the
// first term that deselects it: every +tag must hold and no -tag may.
func (t Tags) Want(meta string) (ok bool, failing string, err error) {
	for _, m := range condition.FindAllStringSubmatch(meta, -1) {
		polarity, tag, cond := m[1], m[2], m[3]
		val, present := t[tag]
		holds := present
		if cond != "" && present {
			holds, err = compare(val, cond)
			if err != nil {
				return false, "", fmt.Errorf("metadata %q: %w", m[0], err)
			}
		}
		if polarity == "-" {
			holds = !holds
		}
		if !holds {
			return false, m[0], nil
		}
	}
	return true, "", nil
}

// compare evaluates a comparison such as ">=2.1" against a tag's value.
func compare(val float64, cond string) (bool, error) {
	m := comparison.FindStringSubmatch(cond)
	if m == nil {
		return false, fmt.Errorf("cannot read the comparison %q", cond)
	}
	n, err := strconv.ParseFloat(m[2], 64)
	if err != nil {
		return false, fmt.Errorf("cannot read the number in %q", cond)
	}
	switch m[1] {
	case "<":
		return val < n, nil
	case "<=":
		return val <= n, nil
	case ">":
		return val > n, nil
	case ">=":
		return val >= n, nil
	default:
		return val == n, nil
	}
}
