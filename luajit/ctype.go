package luajit

import (
	"strconv"
	"strings"
)

// ctype is a C type as LuaJIT's ffi sees it on x86-64 Linux: the scalar
// types, pointers (for ffi.sizeof only) and arrays of them. Structs,
// unions, enums and function types are not modelled. The scalar types are
// package-level values shared by all Lua states; they are never modified.
type ctype struct {
	kind     ckind
	size     int // bytes; -1 when unknown (void, char[], char[?])
	align    int
	unsigned bool
	qual     string // "const ", "volatile ", ... as LuaJIT prints it
	name     string // LuaJIT's name without qualifiers: "int", "uint64_t", "char [16]"
	elem     *ctype // pointers and arrays
	n        int    // array length; arrayVLA for [?], arrayOpen for []
}

type ckind uint8

const (
	kindInt ckind = iota
	kindBool
	kindFloat
	kindVoid
	kindPtr
	kindArray
	kindOpaque // long double, complex: known size, no values
)

const (
	arrayVLA  = -1 // char[?]: the length is ffi.new's second argument
	arrayOpen = -2 // char[]
)

func scalar(kind ckind, size int, unsigned bool, name string) *ctype {
	return &ctype{kind: kind, size: size, align: size, unsigned: unsigned, name: name}
}

// LuaJIT names the fixed-width types by their C equivalents (int8_t is
// "char", int32_t "int") except the 64-bit ones, and long is int64_t.
var (
	ctChar     = scalar(kindInt, 1, false, "char")
	ctUchar    = scalar(kindInt, 1, true, "unsigned char")
	ctShort    = scalar(kindInt, 2, false, "short")
	ctUshort   = scalar(kindInt, 2, true, "unsigned short")
	ctInt      = scalar(kindInt, 4, false, "int")
	ctUint     = scalar(kindInt, 4, true, "unsigned int")
	ctInt64    = scalar(kindInt, 8, false, "int64_t")
	ctUint64   = scalar(kindInt, 8, true, "uint64_t")
	ctBool     = scalar(kindBool, 1, true, "bool")
	ctFloat    = scalar(kindFloat, 4, false, "float")
	ctDouble   = scalar(kindFloat, 8, false, "double")
	ctVoid     = &ctype{kind: kindVoid, size: -1, align: 1, name: "void"}
	ctLongDbl  = &ctype{kind: kindOpaque, size: 16, align: 16, name: "long double"}
	ctComplex  = &ctype{kind: kindOpaque, size: 16, align: 8, name: "complex"}
	ctComplexF = &ctype{kind: kindOpaque, size: 8, align: 4, name: "complex float"}
	ctypedefs  = map[string]*ctype{
		"int8_t": ctChar, "uint8_t": ctUchar, "int16_t": ctShort, "uint16_t": ctUshort,
		"int32_t": ctInt, "uint32_t": ctUint, "int64_t": ctInt64, "uint64_t": ctUint64,
		"size_t": ctUint64, "ssize_t": ctInt64, "intptr_t": ctInt64, "uintptr_t": ctUint64,
		"ptrdiff_t": ctInt64, "wchar_t": ctInt, "bool": ctBool, "_Bool": ctBool,
		"__int64": ctInt64,
	}
)

func (t *ctype) isUint64() bool { return t.kind == kindInt && t.size == 8 && t.unsigned }

// isScalar says whether values of t are numbers in C (cdata boxes here).
func (t *ctype) isScalar() bool {
	return t.kind == kindInt || t.kind == kindBool || t.kind == kindFloat
}

// String is LuaJIT's name of t: "const char *", "int [3][2]".
func (t *ctype) String() string { return t.qual + t.name }

// same says whether a and b are one C type, qualifiers of the outer type
// aside (ffi.istype ignores them; ctype == compares them too).
func (a *ctype) same(b *ctype) bool {
	if a == b {
		return true
	}
	if a.kind != b.kind || a.size != b.size || a.unsigned != b.unsigned || a.n != b.n {
		return false
	}
	switch a.kind {
	case kindPtr, kindArray:
		return a.elem.qual == b.elem.qual && a.elem.same(b.elem)
	}
	return a.name == b.name
}

// withQual returns t with qualifiers q (LuaJIT prints "const int").
func (t *ctype) withQual(q string) *ctype {
	if q == "" {
		return t
	}
	c := *t
	c.qual = q
	return &c
}

// sizeOf is ffi.sizeof(t [, n]): n elements for a [?] array; ok false for
// a size C does not know (void, char[], char[?] without n).
func (t *ctype) sizeOf(n int, haveN bool) (int, bool) {
	if t.kind == kindArray && t.n == arrayVLA {
		if !haveN || n < 0 {
			return 0, false
		}
		return n * t.elem.size, true
	}
	return t.size, t.size >= 0
}

// parseCType reads a C type name such as "uint64_t", "unsigned long long",
// "const char *" or "char[16]". ok is false for anything else (structs,
// unions, enums, function pointers, typedefs from ffi.cdef).
func parseCType(s string) (*ctype, bool) {
	if t, ok := ctypedefs[s]; ok {
		return t, true
	}
	p := ctParser{toks: ctTokens(s)}
	t, ok := p.base()
	if !ok {
		return nil, false
	}
	for p.peek() == "*" {
		p.next()
		q := p.quals()
		t = pointerTo(t).withQual(q)
	}
	var dims []int
	for p.peek() == "[" {
		p.next()
		switch tok := p.next(); {
		case tok == "?" && len(dims) == 0:
			dims = append(dims, arrayVLA)
			if p.next() != "]" {
				return nil, false
			}
		case tok == "]" && len(dims) == 0:
			dims = append(dims, arrayOpen)
		default:
			n, err := strconv.ParseUint(tok, 0, 31)
			if err != nil || p.next() != "]" {
				return nil, false
			}
			dims = append(dims, int(n))
		}
	}
	if p.peek() != "" {
		return nil, false
	}
	if len(dims) > 0 {
		if t.kind == kindVoid {
			return nil, false
		}
		t = arrayOf(t, dims)
	}
	return t, true
}

func pointerTo(t *ctype) *ctype {
	name := t.String() + " *"
	if t.kind == kindPtr {
		name = t.String() + "*"
	}
	return &ctype{kind: kindPtr, size: 8, align: 8, unsigned: true, name: name, elem: t}
}

// arrayOf builds the array type of elem with dims, outermost first:
// int[3][2] is three arrays of two ints, named "int [3][2]".
func arrayOf(elem *ctype, dims []int) *ctype {
	t := elem
	for i := len(dims) - 1; i >= 0; i-- {
		a := &ctype{kind: kindArray, align: elem.align, elem: t, n: dims[i]}
		switch {
		case dims[i] >= 0 && t.size >= 0:
			a.size = dims[i] * t.size
		default:
			a.size = -1
		}
		t = a
	}
	var b strings.Builder
	b.WriteString(elem.String())
	b.WriteByte(' ')
	for _, d := range dims {
		switch d {
		case arrayVLA:
			b.WriteString("[?]")
		case arrayOpen:
			b.WriteString("[]")
		default:
			b.WriteString("[" + strconv.Itoa(d) + "]")
		}
	}
	t.name = b.String()
	return t
}

type ctParser struct {
	toks []string
	i    int
}

func (p *ctParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *ctParser) next() string {
	t := p.peek()
	p.i++
	return t
}

// quals reads const and volatile, returning LuaJIT's prefix for them.
func (p *ctParser) quals() string {
	var c, v bool
	for {
		switch p.peek() {
		case "const":
			c = true
		case "volatile":
			v = true
		default:
			q := ""
			if c {
				q += "const "
			}
			if v {
				q += "volatile "
			}
			return q
		}
		p.next()
	}
}

// base reads the qualifiers and specifiers before any '*' or '['.
func (p *ctParser) base() (*ctype, bool) {
	q := p.quals()
	var signed, unsigned, short, char, int_, float, double, void, complex bool
	longs := 0
	n := 0
	for ; ; n++ {
		tok := p.peek()
		switch tok {
		case "signed":
			signed = true
		case "unsigned":
			unsigned = true
		case "short":
			short = true
		case "long":
			longs++
		case "char":
			char = true
		case "int":
			int_ = true
		case "float":
			float = true
		case "double":
			double = true
		case "void":
			void = true
		case "complex", "_Complex":
			complex = true
		case "const", "volatile":
			q2 := p.quals()
			if !strings.Contains(q, q2) {
				q += q2
			}
			n--
			continue
		default:
			if t, ok := ctypedefs[tok]; ok && n == 0 {
				p.next()
				if q2 := p.quals(); !strings.Contains(q, q2) {
					q += q2
				}
				return t.withQual(q), true
			}
			return p.combine(q, n, signed, unsigned, short, char, int_, float, double, void, complex, longs)
		}
		p.next()
	}
}

func (p *ctParser) combine(q string, n int, signed, unsigned, short, char, int_, float, double, void, complex bool, longs int) (*ctype, bool) {
	if n == 0 || signed && unsigned || longs > 2 {
		return nil, false
	}
	var t *ctype
	switch {
	case complex:
		if signed || unsigned || short || char || int_ || void || longs > 0 {
			return nil, false
		}
		t = ctComplex
		if float {
			t = ctComplexF
		}
	case void:
		if n != 1 {
			return nil, false
		}
		t = ctVoid
	case float:
		if n != 1 {
			return nil, false
		}
		t = ctFloat
	case double:
		switch {
		case n == 1:
			t = ctDouble
		case n == 2 && longs == 1:
			t = ctLongDbl
		default:
			return nil, false
		}
	case char:
		if short || int_ || longs > 0 {
			return nil, false
		}
		t = ctChar
		if unsigned {
			t = ctUchar
		}
	case short:
		if longs > 0 {
			return nil, false
		}
		t = ctShort
		if unsigned {
			t = ctUshort
		}
	case longs > 0:
		t = ctInt64
		if unsigned {
			t = ctUint64
		}
	default: // int, signed, unsigned
		t = ctInt
		if unsigned {
			t = ctUint
		}
	}
	return t.withQual(q), true
}

// ctTokens splits a C type name into identifiers, numbers and the
// punctuation * [ ] ? ( ).
func ctTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '*' || c == '[' || c == ']' || c == '?' || c == '(' || c == ')' || c == ',' || c == ';' || c == '{' || c == '}':
			toks = append(toks, s[i:i+1])
			i++
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\n\r*[]?(),;{}", s[j]) < 0 {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}
