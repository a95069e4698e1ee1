// Package telemetry watches the database server during a run
// (--server-stats): its settings at the start, its counters over the
// measured window, the CPU and memory of its processes when they run on
// this machine, and what the run's sessions wait on. It samples on a
// connection and a goroutine of its own: a sampler that falls behind
// never slows the workers.
package telemetry

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/logging"
	"github.com/sysbench-go/sysbench-go/report"
)

// Sampling periods: the sessions twice a second, the counters and the
// processes every second.
const (
	waitPeriod   = 500 * time.Millisecond
	sampleEvery  = 2 // wait periods per counter and process sample
	maxWaitKinds = 1000
	// memoryEvery is the process samples per memory sample: reading a
	// process's PSS walks its page tables (some 7 ms of kernel time for a
	// 300 MiB mysqld), too much for every second.
	memoryEvery = 5
	// minCPUSample is the shortest span (seconds) a CPU sample is taken
	// over: /proc counts a multi-threaded process's CPU time in 10 ms
	// ticks.
	minCPUSample = 0.2
)

// Sampler watches one server.
type Sampler struct {
	obs  drivers.Observer
	log  *logging.Logger
	pid  int // the server process, 0 when not on this machine
	stop chan struct{}
	done chan struct{}

	mu       sync.Mutex // the observer's connection and everything below
	settings []report.Setting
	notes    []string
	noted    map[string]bool
	absent   []string
	begin    sample // at the window's start
	last     sample // the latest counters sample
	interval sample // at the last intermediate report
	gaugeSum map[string]float64
	gaugeN   int
	waits    map[string]int
	waitN    int
	// sessions and active sum the run's sessions, and those not waiting
	// for the client, over the waitSamples samples.
	sessions, active, waitSamples int
	cpu                           report.ServerCPU
	cpuSum                        float64
	procs                         map[int]uint64 // pid -> CPU time (ns) at the last process sample
	procSamples                   int
	procAt                        time.Time
	lastCPU                       *float64
}

type sample struct {
	at       time.Time
	counters map[string]float64
	own      []drivers.Work // read with the counters
}

// New reads the server's settings and finds its process: pid, when not 0,
// is --server-pid; otherwise the process listening on the server's port
// or socket, when the server is on this machine.
func New(ctx context.Context, obs drivers.Observer, pid int, log *logging.Logger) *Sampler {
	s := &Sampler{obs: obs, log: log, noted: map[string]bool{}, gaugeSum: map[string]float64{}, waits: map[string]int{},
		absent: obs.Absent()}
	settings, notes, err := obs.Settings(ctx)
	s.note(notes...)
	if err != nil {
		s.note(fmt.Sprintf("the settings: %v", err))
	}
	for _, st := range settings {
		s.settings = append(s.settings, report.Setting{Name: st.Name, Value: st.Value})
	}
	ep := obs.Endpoint()
	switch {
	case pid != 0:
		s.pid = pid
	case ep.Host == "" || isLocal(ep.Host):
		s.pid = listenerPID(ep.Port, ep.Socket)
		if s.pid == 0 {
			s.note(fmt.Sprintf("server CPU and memory: no process listening on %s found here (--server-pid gives it)", ep))
		}
	}
	return s
}

// isLocal reports whether host names this machine.
func isLocal(host string) bool {
	if host == "localhost" {
		return true
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return false
	}
	addrs, _ := net.InterfaceAddrs()
	for _, ip := range ips {
		if ip.IsLoopback() {
			return true
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return true
			}
		}
	}
	return false
}

// note records a line on what could not be read, printing it once.
func (s *Sampler) note(lines ...string) {
	for _, l := range lines {
		if !s.noted[l] {
			s.noted[l] = true
			s.notes = append(s.notes, l)
			s.log.Warnf("--server-stats: %s", l)
		}
	}
}

// read samples the counters. Caller holds mu.
func (s *Sampler) read(ctx context.Context, at time.Time) sample {
	counters, gauges, notes, err := s.obs.Counters(ctx)
	s.note(notes...)
	if err != nil {
		s.note(fmt.Sprintf("the counters: %v", err))
		return s.last
	}
	for k, v := range gauges {
		s.gaugeSum[k] += v
	}
	s.gaugeN++
	s.last = sample{at: at, counters: counters, own: s.obs.Own()}
	return s.last
}

// Begin starts the measured window (the engine calls it when the
// statistics start, and again after --warmup-time); the sampling
// goroutine starts with the first call.
func (s *Sampler) Begin(at time.Time) {
	s.mu.Lock()
	s.begin = s.read(context.Background(), at)
	s.interval = s.begin
	clear(s.gaugeSum)
	s.gaugeN = 0
	clear(s.waits)
	s.waitN = 0
	s.sessions, s.active, s.waitSamples = 0, 0, 0
	s.cpu, s.cpuSum = report.ServerCPU{PID: s.pid}, 0
	s.procs, s.procAt = nil, time.Time{}
	s.procSamples = 0
	s.sampleProcesses(at, false) // the baseline of the first CPU sample
	started := s.stop != nil
	if !started {
		s.stop, s.done = make(chan struct{}), make(chan struct{})
	}
	s.mu.Unlock()
	if !started {
		go s.loop()
	}
}

// End ends the measured window: the sampling stops and the counters are
// read a last time.
func (s *Sampler) End(at time.Time) {
	if s.stop == nil {
		return
	}
	close(s.stop)
	<-s.done
	s.mu.Lock()
	s.read(context.Background(), at)
	s.sampleProcesses(at, true)
	s.mu.Unlock()
}

func (s *Sampler) loop() {
	defer close(s.done)
	t := time.NewTicker(waitPeriod)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.mu.Lock()
			s.sampleWaits()
			if n%sampleEvery == sampleEvery-1 {
				s.read(context.Background(), now)
				s.sampleProcesses(now, false)
			}
			s.mu.Unlock()
		}
	}
}

func (s *Sampler) sampleWaits() {
	ws, err := s.obs.Waits(context.Background())
	if err != nil {
		s.note(fmt.Sprintf("the sessions: %v", err))
		return
	}
	for _, w := range ws {
		if _, ok := s.waits[w]; ok || len(s.waits) < maxWaitKinds {
			s.waits[w]++
			s.waitN++
		}
		if !strings.HasPrefix(w, "Client:") {
			s.active++
		}
	}
	s.sessions += len(ws)
	s.waitSamples++
}

// sampleProcesses adds a CPU sample of the server's processes, and a
// memory sample every memoryEvery calls and at the end (final).
func (s *Sampler) sampleProcesses(now time.Time, final bool) {
	if s.pid == 0 {
		return
	}
	procs := processTree(s.pid)
	if len(procs) == 0 {
		s.note(fmt.Sprintf("server CPU and memory: process %d is gone", s.pid))
		s.pid = 0
		return
	}
	if s.procSamples%memoryEvery == 0 || final {
		var mem uint64
		for pid := range procs {
			mem += memory(pid)
		}
		s.cpu.PeakBytes = max(s.cpu.PeakBytes, mem)
	}
	s.procSamples++
	s.cpu.Processes = max(s.cpu.Processes, len(procs))
	elapsed := now.Sub(s.procAt).Seconds()
	if s.procs != nil && elapsed < minCPUSample {
		// A sample right after the last (the window's start racing the
		// ticker's): too short to measure, the last one stays the base.
		return
	}
	if s.procs != nil {
		var ns uint64
		for pid, t := range procs {
			if before, ok := s.procs[pid]; ok && t >= before {
				ns += t - before
			} else if !ok {
				ns += t // a backend started since: its whole time is new
			}
		}
		pct := float64(ns) / 1e9 / elapsed * 100
		s.cpu.Samples++
		s.cpuSum += pct
		s.cpu.PeakPct = max(s.cpu.PeakPct, pct)
		s.cpu.AvgPct = s.cpuSum / float64(s.cpu.Samples)
		s.lastCPU = &pct
	}
	s.procs, s.procAt = procs, now
}

// Report gives an intermediate report the server's side: the CPU of the
// latest sample and the WAL/redo bytes per second since the last
// intermediate report, from the samples taken so far (it never queries).
func (s *Sampler) Report(r *report.Report) {
	if r.Kind != report.Intermediate {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	iv := &report.ServerInterval{}
	if s.lastCPU != nil {
		v := *s.lastCPU
		iv.CPUPct = &v
	}
	if d := s.last.at.Sub(s.interval.at).Seconds(); d > 0 {
		if v, ok := s.last.counters[drivers.WALBytes]; ok {
			rate := (v - s.interval.counters[drivers.WALBytes]) / d
			iv.WALBytesPerSec = &rate
		}
		s.interval = s.last
	}
	r.Server = iv
}

// Stats is the record of the window, with transactions the run's events.
func (s *Sampler) Stats(transactions uint64) *report.ServerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &report.ServerStats{Endpoint: s.obs.Endpoint().String(), Settings: s.settings,
		Seconds: s.last.at.Sub(s.begin.at).Seconds(), Transactions: transactions,
		Counters: map[string]float64{}, Gauges: map[string]float64{}, PerTransaction: map[string]float64{},
		WaitSamples: s.waitN, Waits: []report.WaitShare{}, Notes: append([]string{}, s.notes...)}
	if out.Settings == nil {
		out.Settings = []report.Setting{}
	}
	for k, v := range s.last.counters {
		if d := v - s.begin.counters[k]; d != 0 {
			out.Counters[k] = d
		}
	}
	for _, k := range []string{drivers.WALBytes, drivers.BinlogBytes, drivers.DataBytes} {
		if _, ok := s.last.counters[k]; ok && transactions > 0 {
			out.PerTransaction[k] = out.Counters[k] / float64(transactions)
		}
	}
	for k, v := range s.gaugeSum {
		out.Gauges[k] = v / float64(s.gaugeN)
	}
	if s.waitSamples > 0 {
		out.Gauges[report.RunSessions] = float64(s.sessions) / float64(s.waitSamples)
		out.Gauges[report.RunSessionsActive] = float64(s.active) / float64(s.waitSamples)
	}
	out.Attribution = attribute(s.begin, s.last)
	out.Absent = append([]string{}, s.absent...)
	if s.pid != 0 || s.cpu.Samples > 0 {
		c := s.cpu
		out.CPU = &c
	}
	for ev, n := range s.waits {
		out.Waits = append(out.Waits, report.WaitShare{Event: ev, Samples: n, Share: float64(n) / float64(s.waitN)})
	}
	sort.Slice(out.Waits, func(i, j int) bool {
		if out.Waits[i].Samples != out.Waits[j].Samples {
			return out.Waits[i].Samples > out.Waits[j].Samples
		}
		return out.Waits[i].Event < out.Waits[j].Event
	})
	return out
}

// attribute compares the growth of each counter the observer counts work
// in with the run's and the observer's own counts over the window.
func attribute(begin, end sample) []report.Attribution {
	out := []report.Attribution{}
	for i, w := range end.own {
		server, ok := end.counters[w.Counter]
		if !ok || i >= len(begin.own) {
			continue
		}
		a := report.Attribution{Scope: w.Scope, Counter: w.Counter, What: w.What, Prefix: w.Prefix,
			Server: server - begin.counters[w.Counter], Run: float64(w.Run - begin.own[i].Run),
			Sampler: float64(w.Observer - begin.own[i].Observer)}
		a.Others = a.Server - a.Run - a.Sampler
		a.OthersActive = a.Others > max(othersNoise, othersShare*a.Run)
		out = append(out, a)
	}
	return out
}

// Work of others below this count, or this share of the run's, is noise:
// the server's own background transactions (autovacuum), a sample read a
// statement apart from its count.
const (
	othersNoise = 10
	othersShare = 0.01
)

// Close closes the observer's connection.
func (s *Sampler) Close() error { return s.obs.Close() }
