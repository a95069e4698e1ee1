// Package sbrand is sysbench's pseudo-random number toolkit: a per-thread
// xoroshiro128+ generator and the distributions sysbench scripts use.
package sbrand
