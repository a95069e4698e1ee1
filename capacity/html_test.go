package capacity

import (
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// The page, from a search and a sweep on the fake clock, opens in
// headless Chromium with no request leaving it and both charts drawn:
// the latency–throughput curve with the objective and the answer, the
// scalability curve with the fit and the peaks. Its screenshot is kept
// in the artifacts' directory.
func TestHTMLPageInBrowser(t *testing.T) {
	t.Parallel()
	var page Page
	synctest.Test(t, func(t *testing.T) {
		res, err := Search(t.Context(), fakeClockProber(10*time.Millisecond), Options{
			Objective: objective(t, "p99<=100ms"), Threads: 10, Budget: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		sw, err := Sweep(t.Context(), fakeClockProber(10*time.Millisecond), SweepOptions{Threads: []int{1, 2, 4, 8, 16, 32}, Budget: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		page = Page{Title: "sysbench-go capacity: slots", Search: res, Sweep: sw}
	})
	path := filepath.Join(t.TempDir(), "capacity.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(f, page); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), template.HTMLEscapeString(page.Search.Line())) || !strings.Contains(string(b), template.HTMLEscapeString(page.Sweep.Line())) {
		t.Error("the page does not say the answer and the sweep's line")
	}
	charts := testenv.CheckHTMLReport(t, path, filepath.Join(testenv.ArtifactDir(t), "capacity.png"))
	kinds := map[string][]string{}
	for _, c := range charts {
		kinds[c.Kind] = c.Labels()
	}
	lat := kinds["latency-throughput"]
	if !slices.Contains(lat, "p99") || !slices.Contains(lat, "objective p99<=100ms") || !strings.HasPrefix(lat[len(lat)-1], "capacity ") {
		t.Errorf("latency chart's datasets %q", lat)
	}
	sc := kinds["scalability"]
	if !slices.Contains(sc, "measured") || !slices.Contains(sc, "USL fit") {
		t.Errorf("scalability chart's datasets %q", sc)
	}
}
