package report

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// outageAt is an outage from a to b seconds after t0, seen by one run.
func outageAt(a, b float64, failures map[string]uint64) Outage {
	s, e := t0.Add(time.Duration(a*1e9)), t0.Add(time.Duration(b*1e9))
	return Outage{Start: a, End: b, StartTime: s, EndTime: e, Duration: b - a, Failures: failures,
		Errors: 1, Reconnects: 2, TPSBefore: 100, TPSAfter: 90}
}

// Outages go into the results file and come back the same, and the file
// validates against the schema.
func TestOutagesRoundTrip(t *testing.T) {
	r := sampleResults(t)
	r.Outages = []Outage{outageAt(0.5, 1.75, map[string]uint64{"HYT00": 4, "2013": 1}), outageAt(2.25, 3, map[string]uint64{})}
	r.Outages[1].Ongoing, r.Outages[1].TPSAfter = true, 0
	b := encode(t, r)
	if err := ValidateSchema(b); err != nil {
		t.Fatalf("the file does not validate: %v", err)
	}
	back, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Outages, r.Outages) {
		t.Errorf("outages read back %+v, written %+v", back.Outages, r.Outages)
	}
	// A run without outages writes none: the file is as before.
	r.Outages = nil
	if bytes.Contains(encode(t, r), []byte(`"outages"`)) {
		t.Error("a run without outages writes an outages field")
	}
}

// The Availability block: one line per outage with its failures by code
// below, the ongoing one said so; nothing at all without outages.
func TestWriteAvailability(t *testing.T) {
	var b bytes.Buffer
	WriteAvailability(&b, nil)
	if b.Len() != 0 {
		t.Fatalf("without outages: %q", b.String())
	}
	o2 := outageAt(2.25, 3, nil)
	o2.Ongoing = true
	WriteAvailability(&b, []Outage{outageAt(0.5, 1.75, map[string]uint64{"HYT00": 4, "2013": 1}), o2})
	want := `Availability:
    outages:                             2 (2.000s in all, the longest 1.250s)
              start        end    length  tps before/after       failures  reconnects
    #1       0.500s     1.750s    1.250s  100.00/90.00                  5           2
          HYT00 (query_timeout):               4
          2013 (lost_connection):              1
    #2       2.250s        end    0.750s  100.00/-                      0           2  ongoing at end of run

`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// Merged instances (windows together) were out as a whole only while
// every one was, for the threshold at least; each instance's outages are
// listed after, named by file. Merged rounds (one after the other) keep
// each round's outages as the whole's.
func TestMergeOutages(t *testing.T) {
	a, b := shifted(t, "a", 0), shifted(t, "b", time.Millisecond)
	a.Outages = []Outage{outageAt(0.2, 2.2, map[string]uint64{"HYT00": 2}), outageAt(2.5, 2.9, nil)}
	b.Outages = []Outage{outageAt(0.7, 2.6, map[string]uint64{"HYT00": 3, "08006": 1})}
	m, err := Merge([]*Results{a, b}, []string{"a.json", "b.json"}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Combined.As != AsInstances {
		t.Fatalf("merged as %s", m.Combined.As)
	}
	// The whole: 0.7 .. 2.2 (1.5 s, both out); 2.5 .. 2.6 is under the
	// 1 s threshold. Then a's two and b's one.
	if len(m.Outages) != 4 {
		t.Fatalf("outages %+v, want the whole's one and the instances' three", m.Outages)
	}
	w := m.Outages[0]
	if w.Source != "" || !w.StartTime.Equal(t0.Add(700*time.Millisecond)) || !w.EndTime.Equal(t0.Add(2200*time.Millisecond)) ||
		w.Duration != 1.5 || w.Failures["HYT00"] != 5 || w.Failures["08006"] != 1 || w.TPSBefore != 200 || w.Reconnects != 4 {
		t.Errorf("the whole's outage %+v", w)
	}
	var sources []string
	for _, o := range m.Outages[1:] {
		sources = append(sources, o.Source)
	}
	if strings.Join(sources, ",") != "a.json,a.json,b.json" {
		t.Errorf("the instances' outages come from %v", sources)
	}
	var out bytes.Buffer
	WriteAvailability(&out, m.Outages)
	if !strings.Contains(out.String(), "  (b.json)\n") {
		t.Errorf("the instances' lines do not name their files:\n%s", out.String())
	}
	// The merged file is valid and reads back.
	if _, err := Decode(encode(t, m)); err != nil {
		t.Fatal(err)
	}

	// Rounds: each round's outages are the whole's, at their offsets from
	// the first round's start.
	c := shifted(t, "c", 10*time.Second)
	c.Outages = []Outage{outageAt(10.5, 12, nil)}
	m, err = Merge([]*Results{a, c}, []string{"a.json", "c.json"}, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Combined.As != AsRounds || len(m.Outages) != 3 || m.Outages[2].Start != 10.5 || m.Outages[2].Source != "" {
		t.Errorf("rounds: %s, outages %+v", m.Combined.As, m.Outages)
	}
}
