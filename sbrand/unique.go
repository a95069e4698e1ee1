package sbrand

import "sync/atomic"

// UniqueSeq hands out 32-bit values that do not repeat until all 2^32 have
// been drawn (sysbench.rand.unique). It walks a counter through a permutation
// of the 32-bit integers built from quadratic residues modulo the prime
// 2^32-5 (Jeff Preshing's construction, which the reference uses). One
// sequence is shared by all threads of a run, so values are unique across
// threads too; it is safe for concurrent use.
type UniqueSeq struct {
	index  atomic.Uint32
	offset uint32
}

// NewUniqueSeq seeds a sequence the way the reference seeds its own from two
// random() draws.
func NewUniqueSeq(index, offset uint32) *UniqueSeq {
	u := &UniqueSeq{offset: permuteQR(permuteQR(offset) + 0x46790905)}
	u.index.Store(permuteQR(permuteQR(index) + 0x682f0161))
	return u
}

// Next returns the next value of the sequence.
func (u *UniqueSeq) Next() uint32 {
	i := u.index.Add(1) - 1
	return permuteQR((permuteQR(i) + u.offset) ^ 0x5bf03635)
}

// permuteQR is a bijection on uint32: x maps to x^2 mod p or p minus that,
// depending on which half of [0, p) x is in; the five values at or above p map
// to themselves.
func permuteQR(x uint32) uint32 {
	const p = 4294967291
	if x >= p {
		return x
	}
	r := uint32(uint64(x) * uint64(x) % p)
	if x <= p/2 {
		return r
	}
	return p - r
}

// processUnique serves generators that were not given a sequence of their
// own. The reference's sequence is not reproducible across runs either.
var processUnique = NewSeeder(0).Unique()

// SetUnique makes r draw unique values from u; give every thread of a run the
// same sequence (for example one from the run's [Seeder]).
func (r *Rand) SetUnique(u *UniqueSeq) { r.uniq = u }

// Unique returns the next value of r's unique sequence (sysbench.rand.unique).
func (r *Rand) Unique() uint32 {
	if r.uniq == nil {
		return processUnique.Next()
	}
	return r.uniq.Next()
}
