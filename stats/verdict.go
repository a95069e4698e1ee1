package stats

// The words a comparison of rounds comes to, in one place: every output of
// compare (text, Markdown, compare.json, the HTML report) and of the
// regression gate (report --baseline's lines and --gate-json) says a
// verdict with one of these, so that one cell reads the same everywhere
// (docs/compare.md, docs/measuring.md).

// Verdict is what a change's confidence interval says of a candidate
// against a baseline, on a figure whose better side is known.
type Verdict string

const (
	// Better: the interval lies wholly on the better side of 0 (higher
	// for a rate, lower for a latency).
	Better Verdict = "better"
	// Worse: the interval lies wholly on the worse side of 0.
	Worse Verdict = "worse"
	// NoDifference: the interval holds 0. Not proof that there is none:
	// the rounds could not tell, and the detectable change says how
	// large a difference could hide in them.
	NoDifference Verdict = "no difference detected"
	// NoInterval: there is no interval to judge by (a single round of a
	// side, a round that measured nothing, a single target).
	NoInterval Verdict = "no interval"
)

// Verdicts are the words of a comparison, in the order the docs list them.
var Verdicts = []Verdict{Better, Worse, NoDifference, NoInterval}

// The regression gate's outcome, per figure and in all: it fails only
// on a figure whose verdict is Worse by more than the tolerated amount.
const (
	Pass = "pass"
	Fail = "fail"
)

// Judge is the verdict of a change whose confidence interval runs from
// low to high (fractions: −0.05 is 5% lower), for a figure where higher
// is better (a rate) or lower is (a latency).
func Judge(low, high float64, higherIsBetter bool) Verdict {
	switch {
	case low > 0 && higherIsBetter, high < 0 && !higherIsBetter:
		return Better
	case high < 0 && higherIsBetter, low > 0 && !higherIsBetter:
		return Worse
	}
	return NoDifference
}
