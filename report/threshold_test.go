package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
)

// thresholdRun: 1000 events of 1..1000 µs over 10 s, 20 ignored errors,
// 5 failed events, 2 reconnects, 30 retries, 4000 queries.
func thresholdRun() *metrics.Snapshot {
	reg := metrics.NewRegistry(1, 1, t0)
	h := reg.Handle(0)
	for i := 1; i <= 1000; i++ {
		h.Add(metrics.CntRead, 4)
		h.RecordEvent(int64(i) * 1000)
	}
	for range 20 {
		h.Error("1213")
	}
	for range 5 {
		h.Fail("1213")
	}
	for range 30 {
		h.Retry("1213", false)
	}
	h.Add(metrics.CntReconnect, 2)
	h.Flush()
	return reg.Tick(t0.Add(10 * time.Second))
}

func TestThresholds(t *testing.T) {
	w := thresholdRun()
	for _, c := range []struct {
		expr string
		pass bool
		want string // the measured value as printed
	}{
		{"p95<1ms", true, "p95 = 0.950 ms"},
		{"p95 < 900us", false, "p95 = 0.950 ms"},
		{"p(99.9)<=0.001s", true, "p99.9 = 0.999 ms"},
		{"avg<0.5", false, "avg = 0.500 ms"},
		{"avg<=0.501", true, "avg = 0.500 ms"},
		{"max==1ms", true, "max = 1.000 ms"},
		{"min>=1us", true, "min = 0.001 ms"},
		{"tps>100", false, "tps = 100.00"},
		{"tps>=100", true, "tps = 100.00"},
		{"qps>399", true, "qps = 400.00"},
		{"errors<2%", true, "errors = 1.99%"},
		{"errors<0.01", false, "errors = 1.99%"},
		{"errors<0.02", true, "errors = 1.99%"},
		{"error_count==20", true, "error_count = 20"},
		{"error_count<5", false, "error_count = 20"},
		{"reconnects==0", false, "reconnects = 2"},
		{"reconnects!=0", true, "reconnects = 2"},
		{"failed==5", true, "failed = 5"},
		{"retries>30", false, "retries = 30"},
	} {
		th, err := ParseThreshold(c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		r := CheckThresholds([]Threshold{th}, w)[0]
		if r.Pass != c.pass || r.Measured != c.want {
			t.Errorf("%s: pass %v (%s), want %v (%s)", c.expr, r.Pass, r.Measured, c.pass, c.want)
		}
	}
}

// Every malformed form is refused with one line saying what is wrong.
func TestThresholdRefusals(t *testing.T) {
	for expr, want := range map[string]string{
		"":           "want a measure, a comparison and a bound",
		"p95":        "want a measure, a comparison and a bound",
		"<5ms":       "want a measure, a comparison and a bound",
		"p95<":       "no bound after <",
		"p95=<5":     "'=<5' is not a comparison",
		"p95<<5":     "'<5' is not a number",
		"p95<five":   "'five' is not a number",
		"p95<5kg":    "unit 'kg' is not one of us, ms, s",
		"p0<5":       "'p0' is not a percentile",
		"p100.5<5":   "'p100.5' is not a percentile",
		"pxx<5":      "'pxx' is not a percentile",
		"latency<5":  "unknown measure 'latency'",
		"errors<5ms": "an error ratio takes % or no unit",
		// Issue 37 item 6: a bare number of 1 or more for the error share
		// reads as a count, a percentage or a rate as much as a fraction,
		// and as a fraction it never fails: refused, with each reading.
		"errors<5":       "a bare 5 is ambiguous: errors<5% for a percentage, errors<0.05 (a fraction below 1), error_count<5 for a count",
		"errors<1":       "a bare 1 is ambiguous",
		"errors <= 10":   "a bare 10 is ambiguous: errors<=10% for a percentage",
		"errors<150%":    "150% is above 100%",
		"error_count<5%": "'5%' takes no unit",
		"reconnects<1%":  "'1%' takes no unit",
		"tps>1000rps":    "'1000rps' takes no unit",
		"failed==NaN":    "'NaN' is not a number",
	} {
		_, err := ParseThreshold(expr)
		if err == nil {
			t.Errorf("%q accepted", expr)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, want) || !strings.HasPrefix(msg, "invalid --threshold '"+expr+"': ") || strings.Contains(msg, "\n") {
			t.Errorf("%q: %q, want one line with %q", expr, msg, want)
		}
	}
}

// An error ratio with errors and no event is infinite, and fails any bound.
func TestThresholdErrorsWithoutEvents(t *testing.T) {
	reg := metrics.NewRegistry(1, 1, t0)
	reg.Handle(0).Error("40001")
	reg.Handle(0).Flush()
	th, _ := ParseThreshold("errors<100%")
	r := CheckThresholds([]Threshold{th}, reg.Tick(t0.Add(time.Second)))[0]
	if r.Pass || r.Value != math.MaxFloat64 {
		t.Errorf("%+v", r)
	}
}
