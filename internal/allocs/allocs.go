// Package allocs measures how many heap allocations a function makes, for
// tests that hold a hot path to a budget.
package allocs

import "testing"

// attempts is how many times PerRun measures.
const attempts = 5

// PerRun is the number of heap allocations f makes a call, averaged over
// runs calls as testing.AllocsPerRun does, and the fewest of several such
// measurements. testing.AllocsPerRun counts the whole process's
// allocations: a goroutine another test left behind (a query's cancel
// request still connecting to the server on a busy machine, a connection
// closing) adds its own to f's. Those only ever add, and they end, so the
// fewest of a few measurements is f's own count, whatever else the machine
// does; a budget f really exceeds is exceeded by every measurement.
func PerRun(runs int, f func()) float64 {
	least := testing.AllocsPerRun(runs, f)
	for i := 1; i < attempts && least > 0; i++ {
		least = min(least, testing.AllocsPerRun(runs, f))
	}
	return least
}
