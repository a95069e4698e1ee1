// Package sbrand is sysbench's pseudo-random number toolkit: a per-thread
// xoroshiro128+ generator and the distributions sysbench scripts use.
//
// It reproduces sysbench 1.0.20 bit for bit where the reference is
// deterministic:
//
//   - Each thread owns a xoroshiro128+ state of two 64-bit words. The
//     reference fills it from the C library's random() stream (glibc's
//     additive lagged-Fibonacci generator), which it seeds once per run with
//     --rand-seed, or with the clock when the seed is 0. Every thread takes
//     four consecutive 31-bit draws, in the order threads start. [Seeder]
//     replays that stream, so with the same --rand-seed the k-th thread to
//     seed gets the reference's k-th state; [NewThread] is the shortcut for
//     worker tid when no background thread (report, --rate, checkpoint)
//     seeded first. The reference's threads race for that order; it holds
//     exactly for one worker and in practice for workers started in turn.
//   - The reference's main thread (init(), non-parallel commands) and its
//     unique sequence are seeded before --rand-seed takes effect and differ
//     from run to run, so there is nothing there to reproduce; taking them
//     from the run's Seeder makes them reproducible too.
//   - Uniform doubles take the top 52 bits of the 64-bit output as the
//     mantissa of a number in [1, 2) and subtract 1, as the reference does.
//   - The integer distributions take and return 32-bit unsigned values, as the
//     reference's C functions do: arguments are reduced modulo 2^32 (a Lua
//     -5 becomes 4294967291), intermediate doubles are truncated the way
//     x86-64 converts them, and a range that wraps stays wrapped.
//
// Beyond sysbench 1.0.20, it carries sysbench 1.1's zipfian distribution
// (--rand-zipfian-exp) and varstring, with 1.1's algorithms. Pareto and
// zipfian go through math.Pow / Log / Exp, whose last bit can differ from
// glibc's, so a draw that lands exactly on an integer boundary may differ by
// one from the reference in rare cases; everything else is exact.
//
// Differences that cannot matter to a script: the reference's LuaJIT stops
// truncating a wrapped-range result to 32 bits once it compiles a hot loop
// (uniform(-5, 5) may then give 4294967300); here the result is always the
// 32-bit one. A seed of 0 uses the clock in nanoseconds, not seconds.
//
// A *Rand is owned by one goroutine. The unique sequence ([UniqueSeq]) is the
// one piece meant to be shared between threads, as in the reference.
package sbrand

import (
	"math"
	"sync"
	"time"
)

// Rand is one thread's generator: xoroshiro128+ state plus the distribution
// parameters it draws with. The zero value is not usable; get one from
// [NewThread] or a [Seeder].
type Rand struct {
	s0, s1 uint64

	p    *params
	uniq *UniqueSeq

	// Zipfian's H(n + 1/2) depends on the range size only; the last one is
	// kept so a script hammering one range pays the log/exp once.
	zipfN  uint32
	zipfHN float64

	// Padding to 128 bytes. A generator is written on every draw, and Go
	// places objects of one size class side by side: two workers' 48-byte
	// generators could share a cache line, which both CPUs then pass back
	// and forth. That made 2-thread dry runs land at either ~300k or
	// ~480k events/s depending on where they were allocated; padded, every
	// run is at the higher figure. 128 bytes also keeps the neighbouring
	// line, which the CPU fetches in pairs, to itself.
	_ [80]byte
}

// NewThread returns the generator the reference gives the tid-th thread to
// seed itself in a run started with --rand-seed=seed (0: from the clock). With
// no background threads that is worker thread tid. It uses [DefaultConfig]
// until [Rand.SetConfig] is called.
func NewThread(seed int64, tid int) *Rand {
	s := NewSeeder(seed)
	for i := 0; i < tid; i++ {
		s.skipThread()
	}
	return s.Thread()
}

// FromState returns a generator with the given xoroshiro128+ state, for tests
// and for callers that manage seeding themselves. An all-zero state would
// only ever produce zeros, so it is replaced by a fixed non-zero one.
func FromState(s0, s1 uint64) *Rand {
	if s0 == 0 && s1 == 0 {
		s0 = 0x9e3779b97f4a7c15
	}
	return &Rand{s0: s0, s1: s1, p: &defaultParams}
}

// State returns the current xoroshiro128+ state words.
func (r *Rand) State() (s0, s1 uint64) { return r.s0, r.s1 }

// Uint64 advances the generator and returns its 64-bit output
// (sb_rand_uniform_uint64).
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	out := s0 + s1
	s1 ^= s0
	r.s0 = (s0<<55 | s0>>9) ^ s1 ^ (s1 << 14)
	r.s1 = s1<<36 | s1>>28
	return out
}

// Advance moves the generator n draws on, as n draws whose values go
// unused; the state stays in registers meanwhile.
func (r *Rand) Advance(n int) {
	s0, s1 := r.s0, r.s1
	for range n {
		s1 ^= s0
		s0 = (s0<<55 | s0>>9) ^ s1 ^ (s1 << 14)
		s1 = s1<<36 | s1>>28
	}
	r.s0, r.s1 = s0, s1
}

// Float64 returns a uniform double in [0, 1) built as the reference does:
// the top 52 bits of one output become the mantissa of a value in [1, 2).
func (r *Rand) Float64() float64 {
	return math.Float64frombits(0x3ff<<52|r.Uint64()>>12) - 1
}

// UniformUint64 is sysbench.rand.uniform_uint64.
func (r *Rand) UniformUint64() uint64 { return r.Uint64() }

// UniformDouble is sysbench.rand.uniform_double.
func (r *Rand) UniformDouble() float64 { return r.Float64() }

// Seeder replays the process-wide C library random() stream that the
// reference seeds with --rand-seed and from which every thread then draws its
// xoroshiro128+ state. One Seeder per run, asked for generators in the order
// the reference's threads start (report thread, --rate event generator,
// checkpoint thread, then workers 0..n-1), reproduces the reference's states.
// It is safe for concurrent use.
type Seeder struct {
	mu  sync.Mutex
	lib libcRandom
}

// NewSeeder seeds the stream like the reference's srandom(--rand-seed): the
// seed is taken modulo 2^32, and 0 means "from the clock". The reference uses
// whole seconds there; this uses nanoseconds so that runs started in the same
// second still differ (the sequence is unpredictable either way).
func NewSeeder(seed int64) *Seeder {
	s := &Seeder{}
	s.lib.seed(RunSeed(seed))
	return s
}

// RunSeed is the 32-bit value given to the C library for --rand-seed=seed.
func RunSeed(seed int64) uint32 {
	if seed != 0 {
		return uint32(seed)
	}
	ns := uint64(time.Now().UnixNano())
	return uint32(ns ^ ns>>32)
}

// Thread takes the next four draws of the stream and returns a generator
// seeded from them, as the reference's per-thread initialisation does.
func (s *Seeder) Thread() *Rand {
	s.mu.Lock()
	d0, d1, d2, d3 := s.lib.next(), s.lib.next(), s.lib.next(), s.lib.next()
	s.mu.Unlock()
	return &Rand{
		s0: uint64(d0)<<32 | uint64(d1),
		s1: uint64(d2)<<32 | uint64(d3),
		p:  &defaultParams,
	}
}

// Unique takes the next two draws of the stream and returns a unique
// sequence seeded from them. The reference seeds its unique sequence from an
// unseeded point of the stream, so its values differ from run to run; taking
// them from the run's Seeder makes --rand-seed cover unique() too.
func (s *Seeder) Unique() *UniqueSeq {
	s.mu.Lock()
	idx, off := s.lib.next(), s.lib.next()
	s.mu.Unlock()
	return NewUniqueSeq(idx, off)
}

func (s *Seeder) skipThread() {
	s.mu.Lock()
	for i := 0; i < 4; i++ {
		s.lib.next()
	}
	s.mu.Unlock()
}

// libcRandom is glibc's default random(): 31 words of additive feedback,
// r[i] = r[i-31] + r[i-3], returning the top 31 bits. Seeding fills the table
// with the Park-Miller minimal standard generator and discards 310 outputs.
type libcRandom struct {
	r    [31]int32
	f, b int // feed and back indices; f stays 3 ahead of b
}

func (g *libcRandom) seed(seed uint32) {
	if seed == 0 {
		seed = 1 // glibc's rule: a zero seed behaves as 1
	}
	g.r[0] = int32(seed)
	w := int32(seed) // signed, as in glibc: seeds >= 2^31 start negative
	for i := 1; i < len(g.r); i++ {
		// 16807 * w mod (2^31 - 1) without overflow (Schrage's method),
		// with C's truncating division, as glibc computes it.
		hi, lo := w/127773, w%127773
		w = 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		g.r[i] = w
	}
	g.f, g.b = 3, 0
	for i := 0; i < 10*len(g.r); i++ {
		g.next()
	}
}

func (g *libcRandom) next() uint32 {
	v := uint32(g.r[g.f]) + uint32(g.r[g.b])
	g.r[g.f] = int32(v)
	if g.f++; g.f == len(g.r) {
		g.f = 0
	}
	if g.b++; g.b == len(g.r) {
		g.b = 0
	}
	return v >> 1
}
