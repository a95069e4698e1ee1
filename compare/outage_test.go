package compare

import (
	"reflect"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/metrics"
	"github.com/sysbench-go/sysbench-go/report"
)

// A cell takes the outages of its results file, those of the whole (a
// merged file's instances' own are not the target's).
func TestCellOutages(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	w, err := report.NewWindow(metrics.Empty(t0, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := &report.Results{Total: w, Settings: report.Settings{ReportIntervalSec: 1}, Outages: []report.Outage{
		{Start: 1, End: 2.5}, {Start: 4, End: 6, Ongoing: true}, {Start: 1, End: 3, Source: "b.json"}}}
	var c Cell
	if err := fillCell(&c, r); err != nil {
		t.Fatal(err)
	}
	want := []OutageSpan{{StartS: 1, EndS: 2.5}, {StartS: 4, EndS: 6, Ongoing: true}}
	if !reflect.DeepEqual(c.Outages, want) {
		t.Errorf("outages %+v, want %+v", c.Outages, want)
	}
}
