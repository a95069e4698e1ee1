package sbrand

import (
	"math"
	"math/bits"
)

// String fills buf from template as sysbench.rand.string does: each '#'
// becomes a random digit, each '@' a random lowercase letter (one uniform draw
// each), and other bytes are copied. Like the reference, which reads the
// template as a C string, a NUL byte ends the template: it and everything
// after it come out as zero bytes. The result has len(template) bytes and
// reuses buf when it is large enough.
func (r *Rand) String(buf, template []byte) []byte {
	return fillTemplate(r, buf, template)
}

// StringTemplate is [Rand.String] for a template held in a string, so that
// callers holding one (the Lua binding) need not copy it.
func (r *Rand) StringTemplate(buf []byte, template string) []byte {
	return fillTemplate(r, buf, template)
}

func fillTemplate[T string | []byte](r *Rand, buf []byte, template T) []byte {
	buf = grow(buf, len(template))
	// The generator's state in locals for the loop: Uint64 and Float64
	// written out, one draw per '#' or '@' as there.
	s0, s1 := r.s0, r.s1
	for i := 0; i < len(template); i++ {
		c := template[i]
		if c != '#' && c != '@' {
			if c == 0 {
				clear(buf[i:])
				break
			}
			buf[i] = c
			continue
		}
		out := s0 + s1
		s1 ^= s0
		s0 = bits.RotateLeft64(s0, 55) ^ s1 ^ s1<<14
		s1 = bits.RotateLeft64(s1, 36)
		f := math.Float64frombits(0x3ff<<52|out>>12) - 1
		// uniform32('0', '9') and uniform32('a', 'z') written out: the sum
		// is finite and small, so toU32's range check is not needed, and
		// the conversion keeps the product rounded as there.
		if c == '#' {
			buf[i] = byte(int64('0' + float64(f*10)))
		} else {
			buf[i] = byte(int64('a' + float64(f*26)))
		}
	}
	r.s0, r.s1 = s0, s1
	return buf
}

// VarString returns a random string as sysbench.rand.varstring (sysbench 1.1)
// does: a length drawn uniformly from [min, max], then one uniform draw per
// byte among the ASCII characters '0' through 'z' (digits, letters and the
// punctuation between them). Like the reference, min and max are taken modulo
// 2^32, max == 0 yields an empty string without drawing, and min > max
// means min = 1. The result reuses buf when it is large enough.
func (r *Rand) VarString(buf []byte, min, max int) []byte {
	lo, hi := uint32(min), uint32(max)
	if hi == 0 {
		return buf[:0]
	}
	if lo > hi {
		lo = 1
	}
	n := int(r.uniform32(lo, hi))
	buf = grow(buf, n)
	for i := range buf {
		buf[i] = byte(r.uniform32('0', 'z'))
	}
	return buf
}

func grow(buf []byte, n int) []byte {
	if cap(buf) < n {
		return make([]byte, n)
	}
	return buf[:n]
}
