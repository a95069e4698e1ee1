package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// The interval holds the true mean about as often as its level says:
// normal rounds around 100, 3 and 5 rounds, 2000 intervals each.
func TestMeanIntervalCoverage(t *testing.T) {
	t.Parallel()
	for _, n := range []int{3, 5} {
		rng := rand.New(rand.NewPCG(uint64(n), 9))
		held := 0
		const tries = 2000
		for range tries {
			v := make([]float64, n)
			for i := range v {
				v[i] = 100 + 5*rng.NormFloat64()
			}
			iv, err := MeanInterval(v, 0)
			if err != nil {
				t.Fatal(err)
			}
			if iv.Low <= 100 && 100 <= iv.High {
				held++
			}
		}
		if got := float64(held) / tries; got < 0.935 || got > 0.965 {
			t.Errorf("%d rounds: the 95%% interval held the mean in %.1f%% of tries", n, 100*got)
		}
	}
}

func TestMeanIntervalRefuses(t *testing.T) {
	t.Parallel()
	if _, err := MeanInterval([]float64{1}, 0); !errors.Is(err, ErrTooFewRounds) {
		t.Errorf("one round: %v", err)
	}
	if _, err := MeanInterval([]float64{1, math.Inf(1)}, 0); err == nil {
		t.Error("an infinite round gave an interval")
	}
	iv, err := MeanInterval([]float64{4, 4, 4}, 0)
	if err != nil || iv.Low != 4 || iv.High != 4 || len(iv.Notes) == 0 {
		t.Errorf("equal rounds: %+v, %v: want the point, with a note", iv, err)
	}
}
