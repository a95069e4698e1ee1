package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ChartCheck is what the browser found of one chart of a report page: a
// canvas[data-chart] that Chart.js drew.
type ChartCheck struct {
	ID       string // the canvas's id
	Kind     string // its data-chart attribute
	Type     string // the Chart.js chart type: "line", "bar"
	Datasets []DatasetCheck
	// X and Y are its axes as drawn.
	X, Y AxisCheck
	// Whiskers counts the range whiskers the page's plugin drew (its
	// chart.$whiskers; 0 without).
	Whiskers int
	// Bands are the stretches of the x axis the page shaded (its
	// chart.$bands: from and to, in the axis's values).
	Bands [][2]float64
}

// AxisCheck is an axis as Chart.js drew it: its scale type ("linear",
// "category", "logarithmic") and its range.
type AxisCheck struct {
	Type     string
	Min, Max float64
}

// DatasetCheck is one dataset of a chart: its label, and how many of its
// points (its values but the nulls) Chart.js drew inside the chart area.
type DatasetCheck struct {
	Label  string
	Points int
}

// Labels returns the chart's dataset labels, in order.
func (c ChartCheck) Labels() []string {
	labels := make([]string, len(c.Datasets))
	for i, d := range c.Datasets {
		labels[i] = d.Label
	}
	return labels
}

// Inspection is what InspectHTMLReport found in a page.
type Inspection struct {
	Charts []ChartCheck
	// Problems are what a self-contained report must not show: JavaScript
	// exceptions, console.error calls, errors in the browser's log, requests
	// for anything but the page itself and data: URLs, a page that never
	// said its charts were drawn, and charts not (fully) drawn.
	Problems []string
	// Screenshot is a PNG of the whole page, if it was asked for.
	Screenshot []byte
}

// The browser's window, and how long a page may take to draw its charts.
const (
	browserWidth, browserHeight = 1280, 900
	chartsReadyTimeout          = 30 * time.Second
)

// chromiumFlags are the flags the browser runs with, besides the profile
// directory (and what chromedp adds: the DevTools pipe and about:blank):
// headless, and quiet, so that no request but the page's own leaves it.
var chromiumFlags = []string{
	"headless", "no-sandbox", "disable-gpu", "disable-quic", "no-first-run",
	"disable-background-networking", "disable-component-update", "disable-sync",
}

// Chromium returns the path of the browser for the HTML tests:
// $SBTEST_CHROMIUM, or Debian's /usr/bin/chromium, or chromium on the
// PATH. Without one the test is Unavailable (skipped, or failed under
// CI=true).
func Chromium(t testing.TB) string {
	t.Helper()
	const install = "install the chromium package, or set SBTEST_CHROMIUM to a Chrome or Chromium"
	if p := os.Getenv("SBTEST_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			Unavailable(t, fmt.Sprintf("SBTEST_CHROMIUM: %v (%s): browser checks skipped", err, install))
		}
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		Unavailable(t, "chromium is not installed ("+install+"): browser checks skipped")
	}
	return p
}

// ArtifactDir returns the directory for what a test leaves to be looked at
// after it (screenshots): $SBTEST_ARTIFACTS, or sysbench-go-artifacts in
// the temporary directory. It creates the directory.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("SBTEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "sysbench-go-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// CheckHTMLReport opens the HTML report at path in headless Chromium (see
// Chromium) and fails the test on any of the Inspection's Problems. It
// writes a screenshot of the whole page to screenshot ("" for none), even
// when the test fails, and returns the page's charts.
func CheckHTMLReport(t testing.TB, path, screenshot string) []ChartCheck {
	t.Helper()
	chromium := Chromium(t)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	in, err := InspectHTMLReport(ctx, chromium, path, screenshot != "")
	if err != nil {
		t.Fatal(err)
	}
	if screenshot != "" {
		if err := os.WriteFile(screenshot, in.Screenshot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot of %s: %s", filepath.Base(path), screenshot)
	}
	for _, p := range in.Problems {
		t.Errorf("%s: %s", filepath.Base(path), p)
	}
	if len(in.Problems) > 0 {
		t.FailNow()
	}
	return in.Charts
}

// InspectHTMLReport opens the page at path in a new tab of the browser
// chromium (the test process's one, see openTab). It waits until the
// page's script sets the body's data-charts-ready attribute (to the number
// of charts it drew), or until the first problem, then asks Chart.js
// about every canvas[data-chart] and reads the canvas's pixels; with
// screenshot, it takes one of the whole page. The error says that the
// browser would not start, open the page or answer; what is wrong with the
// page is in the Problems, which are the tab's own: other pages open in
// the browser at the same time add none.
func InspectHTMLReport(ctx context.Context, chromium, path string, screenshot bool) (*Inspection, error) {
	page, err := fileURL(path)
	if err != nil {
		return nil, err
	}
	w := newPageWatch(page)
	tab, closeTab, err := openTab(ctx, chromium, chromedp.WithListener(w.event))
	if err != nil {
		return nil, err
	}
	defer closeTab()

	if err := chromedp.Do(tab, chromedp.Navigate(w.page)); err != nil {
		return nil, fmt.Errorf("open %s: %w", w.page, err)
	}
	if err := w.waitChartsReady(tab); err != nil {
		return nil, fmt.Errorf("wait for the charts of %s: %w", path, err)
	}
	facts, err := chromedp.Run(tab, chromedp.Evaluate[pageFacts](inspectChartsJS))
	if err != nil {
		return nil, fmt.Errorf("inspect the charts of %s: %w", path, err)
	}
	in := &Inspection{}
	if screenshot {
		if in.Screenshot, err = chromedp.Run(tab, chromedp.FullScreenshot(100)); err != nil {
			return nil, fmt.Errorf("screenshot of %s: %w", path, err)
		}
	}
	switch {
	case facts.Ready == "":
		w.add("the page's script did not set data-charts-ready on the body")
	case facts.Ready != fmt.Sprint(len(facts.Charts)):
		w.add(fmt.Sprintf("the page says it drew %s charts, it has %d canvas[data-chart]", facts.Ready, len(facts.Charts)))
	}
	for _, f := range facts.Charts {
		in.Charts = append(in.Charts, f.check())
		for _, p := range f.problems() {
			w.add(fmt.Sprintf("chart %s (%s): %s", f.ID, f.Kind, p))
		}
	}
	in.Problems = w.taken()
	return in, nil
}

// EvalPage opens the page at path in a new tab of the browser chromium
// (the test process's one, see openTab), waits for it to load, and
// returns the value of the JavaScript expression expr there, which must
// be a string.
func EvalPage(ctx context.Context, chromium, path, expr string) (string, error) {
	page, err := fileURL(path)
	if err != nil {
		return "", err
	}
	tab, closeTab, err := openTab(ctx, chromium)
	if err != nil {
		return "", err
	}
	defer closeTab()
	if err := chromedp.Do(tab, chromedp.Navigate(page)); err != nil {
		return "", fmt.Errorf("open %s: %w", page, err)
	}
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](expr))
	if err != nil {
		return "", fmt.Errorf("evaluate %s in %s: %w", expr, path, err)
	}
	return v, nil
}

// fileURL is the file: URL of path.
func fileURL(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// A test process runs one browser for each path of a browser program
// (there is one: Chromium's), started on first use: every page opens in a
// new tab of it, each tab with its own listener, and closes with the tab.
// Starting Chromium costs a second or two of CPU beyond the pages' own
// work, a tab a few milliseconds: the compare package's ten browsers were
// a fifth of its tests' CPU.
//
// No test owns the browser, and a test process has no hook at its end
// without a TestMain: the browser ends with the process. chromedp's
// ExecAllocator starts it with Pdeathsig (SIGKILL) from a goroutine locked
// to its thread until the browser exits, so the kernel kills it when the
// process ends, however it ends. Its profile directory is named after the
// process (see profileRoot); the next test process to start a browser
// removes those of processes that are gone.
//
// A browser that died (or never started) is replaced by the next
// openTab; the tabs open in it fail, since their contexts are its
// children.
var (
	browsersMu sync.Mutex
	browsers   = map[string]*sharedBrowser{}

	// browserStarts counts the browsers started (for the tests).
	browserStarts atomic.Int64
)

// browserStartTimeout bounds the start of a browser, whoever waits for it.
const browserStartTimeout = time.Minute

// sharedBrowser is a browser of the process.
type sharedBrowser struct {
	ready chan struct{} // closed when the start is over: then ctx or err
	// ctx is the browser's first tab, on which the browser started: it is
	// done when the browser is gone, and new tabs are its children.
	ctx context.Context
	err error
	// stop kills the browser (cancels the allocator, waiting for it) and
	// removes its profile. Safe to call more than once, and from any
	// goroutine.
	stop func()
}

// gone says that the browser is no use: its start failed, or it died.
// A browser still starting is not gone.
func (b *sharedBrowser) gone() bool {
	select {
	case <-b.ready:
		return b.err != nil || b.ctx.Err() != nil
	default:
		return false
	}
}

// openTab opens a new tab in the browser chromium, starting the browser if
// the process has none running, emulates the report's window in it, and
// returns its context, bound to ctx (its deadline and its cancellation)
// and to the browser's life, and the func that closes it. opts are for the
// tab's chromedp.NewContext (its listener). It is safe to call from
// several goroutines: each gets a tab of its own.
func openTab(ctx context.Context, chromium string, opts ...chromedp.ContextOption) (context.Context, func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("open a tab in %s: %w", chromium, err)
	}
	browser, err := sharedBrowserFor(ctx, chromium)
	if err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", chromium, err)
	}
	// A tab is a child of the browser's context, not of ctx: the first Run
	// on a chromedp context binds its target to the context it is given,
	// so the tab's context, under the browser's, gets ctx's deadline and
	// cancellation here. Thus it ends with ctx, or with the browser.
	tab, cancelTab := chromedp.NewContext(browser, opts...)
	var run context.Context
	var cancelRun context.CancelFunc
	if d, ok := ctx.Deadline(); ok {
		run, cancelRun = context.WithDeadline(tab, d)
	} else {
		run, cancelRun = context.WithCancel(tab)
	}
	stopAfter := context.AfterFunc(ctx, cancelRun)
	if ctx.Err() != nil {
		cancelRun() // now, not when the AfterFunc's goroutine gets to it
	}
	closeTab := func() {
		stopAfter()
		cancelRun()
		cancelTab() // closes the tab, waiting (at most seconds) for the browser
	}
	if err := chromedp.Do(run, chromedp.EmulateViewport(browserWidth, browserHeight)); err != nil {
		closeTab()
		return nil, nil, fmt.Errorf("open a tab in %s: %w", chromium, err)
	}
	return run, closeTab, nil
}

// sharedBrowserFor returns the context of the process's browser chromium
// (see sharedBrowser), starting one if there is none or it is gone. It
// waits for the start for as long as ctx lets it.
func sharedBrowserFor(ctx context.Context, chromium string) (context.Context, error) {
	browsersMu.Lock()
	b := browsers[chromium]
	if b == nil || b.gone() {
		if b != nil {
			go b.stop()
		}
		b = startBrowser(chromium)
		browsers[chromium] = b
	}
	browsersMu.Unlock()
	select {
	case <-b.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if b.err != nil {
		return nil, b.err
	}
	return b.ctx, nil
}

// startBrowser starts the browser chromium, with a new profile under
// profileRoot, in the background: the sharedBrowser is ready when it has
// started or failed to within browserStartTimeout.
func startBrowser(chromium string) *sharedBrowser {
	browserStarts.Add(1)
	b := &sharedBrowser{ready: make(chan struct{}), stop: func() {}}
	go func() {
		defer close(b.ready)
		root, err := profileRoot()
		if err != nil {
			b.err = err
			return
		}
		profile, err := os.MkdirTemp(root, "profile-")
		if err != nil {
			b.err = err
			return
		}
		opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(chromium), chromedp.UserDataDir(profile)}
		for _, f := range chromiumFlags {
			opts = append(opts, chromedp.Flag(f, true))
		}
		// The browser lives as long as these contexts, not any test's.
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
		b.ctx = browserCtx
		// chromedp's cancel funcs wait for the browser to end; the
		// context's must not be called twice after a failed start (the
		// second would wait for ever), hence the Once.
		b.stop = sync.OnceFunc(func() {
			cancelBrowser()
			cancelAlloc()
			os.RemoveAll(profile)
		})
		timer := time.AfterFunc(browserStartTimeout, b.stop)
		err = chromedp.Do(browserCtx) // starts the browser, bound to browserCtx
		if !timer.Stop() && err == nil {
			err = fmt.Errorf("no answer in %v", browserStartTimeout)
		}
		if err != nil {
			b.err = err
			go b.stop()
		}
	}()
	return b
}

var (
	profileOnce    sync.Once
	profileRootDir string
	profileErr     error
)

// profilePrefix names the directories of the browsers' profiles, one per
// test process, its pid after the prefix.
const profilePrefix = "sysbench-go-chromium-"

// profileRoot returns the directory of the process's browser profiles,
// made on first use, after removing those of test processes that are
// gone (killed, or ended with their browser's profile in place).
func profileRoot() (string, error) {
	profileOnce.Do(func() {
		old, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
		for _, dir := range old {
			pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), profilePrefix))
			if err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
				os.RemoveAll(dir)
			}
		}
		profileRootDir = filepath.Join(os.TempDir(), profilePrefix+strconv.Itoa(os.Getpid()))
		profileErr = os.MkdirAll(profileRootDir, 0o700)
	})
	return profileRootDir, profileErr
}

// pageWatch collects, from the tab's events, what a self-contained page
// must not do. The tab calls event in the order the browser sent them, so
// when a command returns, the events before its reply are in.
type pageWatch struct {
	page     string        // the page's own URL
	troubled chan struct{} // closed at the first problem
	once     sync.Once

	mu       sync.Mutex
	problems []string
}

func newPageWatch(page string) *pageWatch {
	return &pageWatch{page: page, troubled: make(chan struct{})}
}

func (w *pageWatch) add(p string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.problems = append(w.problems, p)
	w.once.Do(func() { close(w.troubled) })
}

func (w *pageWatch) taken() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.problems
}

// event is the tab's listener: it must return fast and send no command.
func (w *pageWatch) event(ev any) {
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		w.add("JavaScript exception: " + exceptionText(ev.ExceptionDetails))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			w.add(fmt.Sprintf("console.%s: %s", ev.Type, consoleArgs(ev.Args)))
		}
	case *log.EventEntryAdded:
		if e := ev.Entry; e.Level == log.EntryLevelError {
			w.add(fmt.Sprintf("browser log (%s): %s %s", e.Source, e.Text, e.URL))
		}
	case *network.EventRequestWillBeSent:
		if u := ev.Request.URL; u != w.page && !strings.HasPrefix(u, "data:") {
			w.add("network request for " + u + " (a report must be self-contained)")
		}
	}
}

// waitChartsReady waits until the page sets data-charts-ready on its body,
// for at most chartsReadyTimeout. The first problem ends the wait, since
// the page has failed then (an exception or a script the CSP blocked would
// keep it from getting there). Whether the page got there is for the
// inspection to tell; the error is for a tab that went away.
func (w *pageWatch) waitChartsReady(tab context.Context) error {
	ctx, stop := context.WithCancel(tab)
	defer stop()
	go func() {
		select {
		case <-w.troubled:
			stop()
		case <-ctx.Done():
		}
	}()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.body && document.body.dataset.chartsReady`,
		chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(chartsReadyTimeout)))
	if err != nil && tab.Err() != nil {
		return err
	}
	return nil
}

// exceptionText is an exception's message and where it was thrown.
func exceptionText(d *runtime.ExceptionDetails) string {
	msg := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		msg += " " + d.Exception.Description
	}
	return fmt.Sprintf("%s (%s:%d:%d)", msg, d.URL, d.LineNumber+1, d.ColumnNumber+1)
}

// consoleArgs are a console call's arguments as text.
func consoleArgs(args []*runtime.RemoteObject) string {
	parts := make([]string, len(args))
	for i, a := range args {
		var s string
		switch {
		case a.Type == runtime.RemoteObjectTypeString && json.Unmarshal(a.Value, &s) == nil:
			parts[i] = s
		case len(a.Value) > 0:
			parts[i] = string(a.Value)
		case a.UnserializableValue != "":
			parts[i] = string(a.UnserializableValue)
		default:
			parts[i] = a.Description
		}
	}
	return strings.Join(parts, " ")
}

// pageFacts is what inspectChartsJS reports of the page: its body's
// data-charts-ready ("" when unset) and its charts.
type pageFacts struct {
	Ready  string       `json:"ready"`
	Charts []chartFacts `json:"charts"`
}

// chartFacts is what inspectChartsJS reports of a canvas.
type chartFacts struct {
	ID       string         `json:"id"`
	Kind     string         `json:"kind"`
	Chart    bool           `json:"chart"` // Chart.js has a chart on it
	Type     string         `json:"type"`
	Datasets []datasetFacts `json:"datasets"`
	// Coloured counts the plot area's pixels in colour: the data. Chart.js
	// draws the axes, the grid and the text in greys.
	Coloured int          `json:"coloured"`
	X        axisFacts    `json:"x"`
	Y        axisFacts    `json:"y"`
	Whiskers int          `json:"whiskers"`
	Bands    [][2]float64 `json:"bands"`
}

// axisFacts is what inspectChartsJS reports of an axis.
type axisFacts struct {
	Type string  `json:"type"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// datasetFacts is what inspectChartsJS reports of a dataset.
type datasetFacts struct {
	Label   string `json:"label"`
	Visible bool   `json:"visible"`
	Values  int    `json:"values"` // its data but the nulls
	Inside  int    `json:"inside"` // of those, drawn at finite positions in the chart area
}

func (f chartFacts) check() ChartCheck {
	c := ChartCheck{ID: f.ID, Kind: f.Kind, Type: f.Type, Whiskers: f.Whiskers, Bands: f.Bands,
		X: AxisCheck(f.X), Y: AxisCheck(f.Y)}
	for _, d := range f.Datasets {
		c.Datasets = append(c.Datasets, DatasetCheck{Label: d.Label, Points: d.Inside})
	}
	return c
}

func (f chartFacts) problems() []string {
	if !f.Chart {
		return []string{"Chart.js has no chart on the canvas"}
	}
	var ps []string
	if len(f.Datasets) == 0 {
		ps = append(ps, "no dataset")
	}
	for _, d := range f.Datasets {
		switch {
		case !d.Visible:
			ps = append(ps, fmt.Sprintf("dataset %q is hidden", d.Label))
		case d.Values == 0:
			ps = append(ps, fmt.Sprintf("dataset %q has no values", d.Label))
		case d.Inside < d.Values:
			ps = append(ps, fmt.Sprintf("dataset %q: %d of its %d values drawn inside the chart area", d.Label, d.Inside, d.Values))
		}
	}
	if f.Coloured == 0 {
		ps = append(ps, "its plot area is blank: no pixel in colour")
	}
	return ps
}

// inspectChartsJS reads the body's data-charts-ready, and asks Chart.js
// about each canvas[data-chart]: where it drew each dataset's elements,
// and what colours its plot area has.
const inspectChartsJS = `(() => {
  const inside = (el, area) => el && Number.isFinite(el.x) && Number.isFinite(el.y) &&
    el.x >= area.left - 1 && el.x <= area.right + 1 && el.y >= area.top - 1 && el.y <= area.bottom + 1;
  const value = (v) => (v !== null && typeof v === 'object') ? v.y : v;
  const coloured = (canvas, chart) => {
    const r = chart.currentDevicePixelRatio, a = chart.chartArea;
    const w = Math.floor((a.right - a.left) * r), h = Math.floor((a.bottom - a.top) * r);
    if (w <= 0 || h <= 0) return 0;
    const px = canvas.getContext('2d').getImageData(Math.ceil(a.left * r), Math.ceil(a.top * r), w, h).data;
    let n = 0;
    for (let i = 0; i < px.length; i += 4) {
      const hi = Math.max(px[i], px[i + 1], px[i + 2]), lo = Math.min(px[i], px[i + 1], px[i + 2]);
      if (px[i + 3] >= 128 && hi - lo > 48) n++;
    }
    return n;
  };
  const charts = Array.from(document.querySelectorAll('canvas[data-chart]'), (canvas) => {
    const facts = {id: canvas.id, kind: canvas.dataset.chart, chart: false, type: '', datasets: [], coloured: 0,
      x: {type: '', min: 0, max: 0}, y: {type: '', min: 0, max: 0}, whiskers: 0, bands: []};
    const chart = typeof Chart === 'function' ? Chart.getChart(canvas) : undefined;
    if (!chart) return facts;
    facts.chart = true;
    facts.type = chart.config.type;
    chart.data.datasets.forEach((ds, i) => {
      const els = chart.getDatasetMeta(i).data;
      let values = 0, drawn = 0;
      ds.data.forEach((v, j) => {
        const y = value(v);
        if (y === null || y === undefined || Number.isNaN(y)) return;
        values++;
        if (inside(els[j], chart.chartArea)) drawn++;
      });
      facts.datasets.push({label: String(ds.label), visible: chart.isDatasetVisible(i), values: values, inside: drawn});
    });
    facts.coloured = coloured(canvas, chart);
    for (const a of ['x', 'y']) {
      const s = chart.scales[a];
      if (s) facts[a] = {type: s.type, min: Number(s.min) || 0, max: Number(s.max) || 0};
    }
    facts.whiskers = chart.$whiskers || 0;
    facts.bands = chart.$bands || [];
    return facts;
  });
  return {ready: document.body.dataset.chartsReady || '', charts: charts};
})()`
