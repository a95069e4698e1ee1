package report

import (
	"fmt"

	"github.com/sysbench-go/sysbench-go/stats"
)

// Capacity is the capacity command's record in the results file
// (docs/capacity.md): the search for the highest arrival rate that keeps
// an objective, every step it measured, and the concurrency sweep with
// its Universal Scalability Law fit. Package capacity fills it.
type Capacity struct {
	// Objective is the --slo expressions, as given.
	Objective []string `json:"objective"`
	// Threads is the workers serving the arrivals (the most events in
	// flight).
	Threads int `json:"threads"`
	// BudgetSeconds is --capacity-time; ElapsedSeconds what the search
	// took.
	BudgetSeconds  float64 `json:"budget_seconds"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	// Precision is the narrowing's stop: the failing rate at most this
	// fraction above the holding one.
	Precision float64 `json:"precision"`
	// Outcome is "answer", "no_rate_holds", "budget_too_small",
	// "interrupted" or "sweep" (a sweep alone, no search).
	Outcome string `json:"outcome"`
	// Line is the answer line, or the FATAL line's cause.
	Line string `json:"line"`
	// Answer is the rate found, nil without one.
	Answer *CapacityAnswer `json:"answer,omitempty"`
	// Steps are the search's steps in the order run.
	Steps []CapacityStep `json:"steps"`
	// Sweep is the concurrency sweep, nil without --sweep.
	Sweep *CapacitySweep `json:"sweep,omitempty"`
}

// CapacityAnswer is the highest rate found to keep the objective.
type CapacityAnswer struct {
	// Rate is the mean achieved rate (events per second) of the rounds
	// at the answer's offered rate; Low and High the interval that
	// holds the capacity (Interval, widened to FailedOffered).
	Rate  float64 `json:"rate"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Level float64 `json:"level"`
	// Offered is the arrival rate of the rounds.
	Offered float64 `json:"offered"`
	// Rounds are the rounds' achieved rates; RoundsHeld how many kept the
	// objective (fewer than all: the rounds disagree).
	Rounds     []float64 `json:"rounds"`
	RoundsHeld int       `json:"rounds_held"`
	// Interval is the rounds' own confidence interval.
	Interval stats.Interval `json:"interval"`
	// Measured is the objective over the rounds' windows together.
	Measured []ThresholdResult `json:"measured"`
	// FailedOffered is the lowest offered rate that missed the objective
	// or saturated (0: none did within the budget).
	FailedOffered float64 `json:"failed_offered"`
	// Saturation is the offered rate at which the server saturated:
	// the lowest saturated step's, or the closed-model probe's throughput
	// (SaturationFrom "step" or "probe").
	Saturation     float64  `json:"saturation"`
	SaturationFrom string   `json:"saturation_from"`
	Notes          []string `json:"notes,omitempty"`
}

// CapacityStep is one load measured once steady.
type CapacityStep struct {
	// Phase is "probe" (the closed-model start), "up", "down", "narrow",
	// "confirm" (the answer's rounds) or "sweep".
	Phase string `json:"phase"`
	// Model is "open" (arrivals at Offered per second; latency from each
	// arrival) or "closed" (Threads workers, each starting its next event
	// when its last ends).
	Model   string  `json:"model"`
	Threads int     `json:"threads"`
	Offered float64 `json:"offered"`
	// Achieved is the events per second completed in the window.
	Achieved float64 `json:"achieved"`
	// ErrorShare is the ignored errors over the events tried.
	ErrorShare float64 `json:"error_share"`
	// Objective is each --slo expression on the window.
	Objective []ThresholdResult `json:"objective"`
	// Holds: the objective held and the server kept up.
	Holds bool `json:"holds"`
	// Saturated: the completions fell clearly below the arrivals while
	// the queue grew.
	Saturated bool `json:"saturated"`
	// QueueGrowth is the arrivals waiting for a worker at the window's
	// end less at its start (open model).
	QueueGrowth int64 `json:"queue_growth"`
	// Steady: the warm-up ended on a steady throughput and, in the open
	// model, the queue did not grow.
	Steady        bool    `json:"steady"`
	WarmupSeconds float64 `json:"warmup_s"`
	// Window is the measured window, with its whole latency histogram.
	Window *Window `json:"window"`
}

// CapacitySweep is the concurrency sweep: throughput against threads in
// the closed model, and the USL fitted to it.
type CapacitySweep struct {
	Steps []CapacityStep `json:"steps"`
	// PeakThreads and PeakRate are the measured peak.
	PeakThreads int     `json:"peak_threads"`
	PeakRate    float64 `json:"peak_rate"`
	// Fit is nil with fewer points than the fit needs.
	Fit *USLFit `json:"fit,omitempty"`
}

// USLFit is Gunther's Universal Scalability Law fitted to a sweep:
// X(N) = λN / (1 + σ(N−1) + κN(N−1)).
type USLFit struct {
	Sigma  float64 `json:"sigma"`
	Kappa  float64 `json:"kappa"`
	Lambda float64 `json:"lambda"`
	// PeakThreads is N* = sqrt((1−σ)/κ), 0 when κ is 0 (no peak: the
	// throughput levels off); PeakRate the fitted throughput there.
	PeakThreads float64 `json:"peak_threads"`
	PeakRate    float64 `json:"peak_rate"`
	R2          float64 `json:"r2"`
	// Poor says the fit does not describe the points; Reasons say why.
	Poor      bool      `json:"poor"`
	Reasons   []string  `json:"reasons,omitempty"`
	Residuals []float64 `json:"residuals"`
	Method    string    `json:"method"`
}

// check is the capacity record's agreement with itself: every step's
// window holds its histogram's events.
func (c *Capacity) check() error {
	for _, steps := range [][]CapacityStep{c.Steps, c.sweepSteps()} {
		for i := range steps {
			if w := steps[i].Window; w != nil {
				if err := w.check(0); err != nil {
					return fmt.Errorf("inconsistent capacity step %d: %w", i+1, err)
				}
			}
		}
	}
	if a := c.Answer; a != nil && !(a.Low <= a.Rate && a.Rate <= a.High) {
		return fmt.Errorf("inconsistent capacity answer: %g outside its interval %g to %g", a.Rate, a.Low, a.High)
	}
	return nil
}

func (c *Capacity) sweepSteps() []CapacityStep {
	if c.Sweep == nil {
		return nil
	}
	return c.Sweep.Steps
}
