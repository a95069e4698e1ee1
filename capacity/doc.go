// Package capacity finds the most a server sustains within a latency
// objective, and how its throughput scales with concurrency
// (docs/capacity.md).
//
// Search offers load in an open model — arrivals at a rate, each event's
// latency counted from its arrival, so that the time it queued for a
// worker counts — steps the rate up from a closed-model probe's
// throughput until the objective breaks or the server saturates, narrows
// to the highest rate that holds, and confirms it over rounds with a
// confidence interval. Sweep steps the thread count in the closed model
// and fits Gunther's Universal Scalability Law to the throughput.
//
// Both drive the workload through a Prober, which runs it at one load
// until steady and measures a window; Engine is the Prober over the
// engine, for any test the command line can run. The package prints the
// answer line, the step tables and a self-contained HTML page, and fills
// the results file's capacity record; it knows nothing of the command
// line.
package capacity
