package authoring

import "strings"

// The types of the API's objects a variable holds, inferred from what is
// assigned to it: x = con:prepare(sql) makes x a statement when every
// value the program gives x (and x's fields, key for key, a computed key
// matching any) is one; nil and table constructors (containers) do not
// count against it. Anything else assigned, or nothing, leaves it unknown,
// and unknown receivers are not checked.

// typeOf is the object type of the variable path vp, "" when unknown.
func (a *analysis) typeOf(vp varPath) string {
	if t, ok := a.types[vp]; ok {
		return t
	}
	if a.resolving[vp] {
		return "" // a cycle: x = x
	}
	a.resolving[vp] = true
	t := a.resolve(vp)
	delete(a.resolving, vp)
	a.types[vp] = t
	return t
}

func (a *analysis) resolve(vp varPath) string {
	want := splitSteps(vp.steps)
	typ := ""
	for _, as := range a.assigns[vp.v] {
		got := splitSteps(as.to.steps)
		switch {
		case len(got) == len(want) && stepsMatch(got, want):
		case len(got) < len(want) && stepsMatch(got, want[:len(got)]):
			// A container on the way: anything else there hides what
			// its fields hold.
			if as.src.kind != srcTable && as.src.kind != srcNil {
				return ""
			}
			continue
		default:
			continue
		}
		if as.src.kind == srcTable || as.src.kind == srcNil {
			continue
		}
		t := a.typeOfSource(as.src)
		if t == "" || (typ != "" && t != typ) {
			return ""
		}
		typ = t
	}
	return typ
}

func splitSteps(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "/")
}

func stepsMatch(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] && a[i] != "*" && b[i] != "*" {
			return false
		}
	}
	return true
}

// typeOfSource is the object type a value made by src has.
func (a *analysis) typeOfSource(src source) string {
	switch src.kind {
	case srcAPI:
		if a.pathWrites[src.typ] || (!strings.Contains(src.typ, ".") && a.globalWrites[src.typ]) {
			// The program's own function.
			if src.path.v.valid() {
				return a.callResult(src.path.v, 0)
			}
			return ""
		}
		return a.sigs[a.c.surface.Canonical[src.typ]].Returns
	case srcCall:
		return a.callResult(src.path.v, src.idx)
	case srcVar:
		if src.path.v.global != "" && src.path.steps == "" && !a.globalWrites[src.path.v.global] {
			return "" // a global of sysbench's (a function, a table)
		}
		return a.typeOf(src.path)
	case srcMethod:
		var recv string
		if src.recv != nil {
			recv = a.typeOfSource(*src.recv)
		} else {
			recv = a.typeOf(src.path)
		}
		if recv == "" {
			return ""
		}
		return a.sigs[recv+":"+src.method].Returns
	}
	return ""
}

// callKey is a result of a function, for cycles among them.
type callKey struct {
	fn  varKey
	idx int
}

// callResult is the object type result idx of the program's function fn
// gives: the same from every return statement that gives one.
func (a *analysis) callResult(fn varKey, idx int) string {
	k := callKey{fn, idx}
	if a.calling[k] {
		return ""
	}
	a.calling[k] = true
	defer delete(a.calling, k)
	typ := ""
	for _, f := range a.files {
		for _, r := range f.facts.returns[fn] {
			if idx >= len(r.srcs) {
				if r.multi {
					return "" // from a call the walk did not follow
				}
				continue // nil
			}
			src := r.srcs[idx]
			if src.kind == srcNil {
				continue
			}
			t := a.typeOfSource(src)
			if t == "" || (typ != "" && t != typ) {
				return ""
			}
			typ = t
		}
	}
	return typ
}
