// Package stats owns the statistics behind a decision: how much a candidate
// differs from a baseline over repeated rounds and how sure that is
// (Compare), whether a candidate regressed beyond a tolerance (Gate), where
// a run's throughput settles (SteadyState), and how much it wobbles once it
// has (MeasureVariation).
//
// A round — one run of the same workload on the same setup — is the unit
// of replication: each gives one figure (TPS, p95 in ms), and only the
// spread between rounds says how much a difference could be chance. The
// intervals within one run are not independent of each other and are used
// only to describe that run.
//
// The package is pure computation: no I/O, no state, nothing of the rest
// of the project. Every function returns an error instead of a NaN or an
// infinity; docs/decisions.md explains the methods for the reader of a
// report.
package stats
