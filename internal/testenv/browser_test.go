package testenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// writePage writes a page with body to dir/name.html and returns its path.
func writePage(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name+".html")
	doc := "<!DOCTYPE html><html><head><meta charset=utf-8><link rel=icon href=\"data:,\"></head><body>" + body + "</body></html>"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSharedBrowserTabs inspects pages from several goroutines at once:
// one browser serves them all, and each page's problems are its own.
func TestSharedBrowserTabs(t *testing.T) {
	chromium := Chromium(t)
	dir := t.TempDir()
	pages := map[string]struct {
		body string
		want []string // the problems, each in one
	}{
		"clean": {body: `<p id=x>all well</p><script>document.body.dataset.chartsReady = '0'</script>`},
		"error": {
			body: `<script>console.error('only mine'); document.body.dataset.chartsReady = '0'</script>`,
			want: []string{"console.error: only mine"},
		},
		"throws": {
			body: `<script>throw new Error("mine too")</script>`,
			want: []string{"JavaScript exception: Uncaught Error: mine too", "did not set data-charts-ready"},
		},
	}
	before := browserStarts.Load()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for name, p := range pages {
		path := writePage(t, dir, name, p.body)
		for i := range 2 {
			wg.Go(func() {
				in, err := InspectHTMLReport(ctx, chromium, path, i == 0)
				if err != nil {
					t.Errorf("%s: %v", name, err)
					return
				}
				if len(in.Problems) != len(p.want) {
					t.Errorf("%s: problems %q, want %d: %q", name, in.Problems, len(p.want), p.want)
					return
				}
				for j, w := range p.want {
					if !strings.Contains(in.Problems[j], w) {
						t.Errorf("%s: problem %q, want %q in it", name, in.Problems[j], w)
					}
				}
				if (i == 0) != (len(in.Screenshot) > 0) {
					t.Errorf("%s: screenshot of %d bytes, asked for: %v", name, len(in.Screenshot), i == 0)
				}
			})
		}
		wg.Go(func() {
			text, err := EvalPage(ctx, chromium, path, `document.body.innerText`)
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else if name == "clean" && text != "all well" {
				t.Errorf("%s: text %q, want %q", name, text, "all well")
			}
		})
	}
	wg.Wait()
	if n := browserStarts.Load() - before; n > 1 {
		t.Errorf("%d browsers started for one test, want at most 1", n)
	}
}

// TestSharedBrowserEnds checks that an inspection ends with its context,
// whatever the page does, and that a browser that dies fails its open tabs
// and makes way for a new one.
func TestSharedBrowserEnds(t *testing.T) {
	chromium := Chromium(t)
	dir := t.TempDir()
	never := writePage(t, dir, "never", `<p>no charts-ready here</p>`)
	clean := writePage(t, dir, "clean", `<script>document.body.dataset.chartsReady = '0'</script>`)

	// A page that never says its charts are drawn: the inspection waits
	// for at most its context's 2s, not chartsReadyTimeout.
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	start := time.Now()
	_, err := InspectHTMLReport(ctx, chromium, never, false)
	cancel()
	if err == nil || time.Since(start) > chartsReadyTimeout/2 {
		t.Errorf("an inspection past its deadline: %v after %v, want an error after about 2s", err, time.Since(start))
	}
	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	if _, err := InspectHTMLReport(ctx, chromium, clean, false); !errors.Is(err, context.Canceled) {
		t.Errorf("an inspection with a canceled context: %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	tab, closeTab, err := openTab(ctx, chromium)
	if err != nil {
		t.Fatal(err)
	}
	defer closeTab()
	browsersMu.Lock()
	b := browsers[chromium]
	browsersMu.Unlock()
	before := browserStarts.Load()
	b.stop() // the browser dies under the tab
	done := make(chan error, 1)
	go func() {
		_, err := chromedp.Run(tab, chromedp.Evaluate[int](`1 + 2`))
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a tab of a dead browser answered")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a tab of a dead browser hangs")
	}
	in, err := InspectHTMLReport(ctx, chromium, clean, false)
	if err != nil {
		t.Fatalf("after the browser died: %v", err)
	}
	if len(in.Problems) > 0 {
		t.Errorf("after the browser died: problems %q", in.Problems)
	}
	if n := browserStarts.Load() - before; n != 1 {
		t.Errorf("%d browsers started after one died, want 1", n)
	}
	// The dead browser's profile is gone, the new one's is there.
	if entries, err := os.ReadDir(profileRootDir); err != nil || len(entries) != 1 {
		t.Errorf("the profiles in %s: %v %v, want the new browser's alone", profileRootDir, entries, err)
	}
}
