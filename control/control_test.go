package control

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// endpoint serves one instance's endpoints.
func endpoint(t *testing.T, in *Instance) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	in.Handle(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func fleet(urls ...string) *Fleet {
	return &Fleet{URLs: urls, Client: &http.Client{}, Poll: 10 * time.Millisecond, Lost: time.Second}
}

// request makes one request and returns the answer's status and body.
func request(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func post(t *testing.T, url, body string) (int, string) {
	return request(t, http.MethodPost, url, body)
}
func get(t *testing.T, url string) (int, string) { return request(t, http.MethodGet, url, "") }

// TestInstanceLifecycle walks an instance through its states as the
// start command sees them: not ready, ready, started once, results only
// when finished, fetched.
func TestInstanceLifecycle(t *testing.T) {
	in := NewInstance(1, 3)
	srv := endpoint(t, in)
	if code, _ := get(t, srv.URL+"/ready"); code != http.StatusServiceUnavailable {
		t.Errorf("/ready while initialising: %d", code)
	}
	if code, body := get(t, srv.URL+"/results"); code != http.StatusConflict || !strings.Contains(body, "initializing") {
		t.Errorf("/results before the run: %d %s", code, body)
	}
	at := time.Now().Add(time.Second).UTC().Truncate(time.Millisecond)
	if code, body := post(t, srv.URL+"/start", fmt.Sprintf(`{"start_at": %q}`, at.Format(time.RFC3339Nano))); code != http.StatusConflict {
		t.Errorf("/start before ready: %d %s", code, body)
	}
	got := make(chan time.Time, 1)
	go func() {
		a, err := in.AwaitStart(context.Background(), time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- a
	}()
	waitState(t, in, Ready)
	if code, _ := get(t, srv.URL+"/ready"); code != http.StatusOK {
		t.Errorf("/ready when ready: %d", code)
	}
	for _, bad := range []string{`{}`, `{"start_at": "tomorrow"}`, `{"start_at": "2026-01-01T00:00:00Z", "x": 1}`, `not json`} {
		if code, body := post(t, srv.URL+"/start", bad); code != http.StatusBadRequest {
			t.Errorf("/start %s: %d %s", bad, code, body)
		}
	}
	if code, body := post(t, srv.URL+"/start", `{"start_at": "2099-01-01T00:00:00Z"}`); code != http.StatusBadRequest || !strings.Contains(body, "years ahead") {
		t.Errorf("/start far ahead: %d %s", code, body)
	}
	if code, body := post(t, srv.URL+"/start", fmt.Sprintf(`{"start_at": %q}`, at.Format(time.RFC3339Nano))); code != http.StatusOK {
		t.Fatalf("/start: %d %s", code, body)
	}
	if a := <-got; !a.Equal(at) {
		t.Errorf("AwaitStart gave %v, want %v", a, at)
	}
	if code, _ := post(t, srv.URL+"/start", fmt.Sprintf(`{"start_at": %q}`, at.Format(time.RFC3339Nano))); code != http.StatusConflict {
		t.Errorf("a second /start: %d", code)
	}
	if code, _ := post(t, srv.URL+"/abort", `{"reason": "x"}`); code != http.StatusConflict {
		t.Errorf("/abort of a running instance: %d", code)
	}
	if st := in.Status(); st.State != Running || st.StartAt == nil || !st.StartAt.Equal(at) || st.Instance != 1 || st.Instances != 3 {
		t.Errorf("status: %+v", st)
	}
	in.Finish([]byte(`{"results": 1}`))
	fetched := make(chan error, 1)
	go func() { fetched <- in.WaitFetched(context.Background(), time.Minute) }()
	if code, body := get(t, srv.URL+"/results"); code != http.StatusOK || body != `{"results": 1}` {
		t.Errorf("/results: %d %s", code, body)
	}
	if err := <-fetched; err != nil {
		t.Error(err)
	}
}

func waitState(t *testing.T, in *Instance, s State) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); in.Status().State != s; {
		if time.Now().After(deadline) {
			t.Fatalf("state %s, not %s", in.Status().State, s)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestAwaitStartEnds: an instance waits no longer than told, and a
// start command that gives up ends its wait at once.
func TestAwaitStartEnds(t *testing.T) {
	in := NewInstance(0, 2)
	if _, err := in.AwaitStart(context.Background(), 20*time.Millisecond); err == nil || !strings.Contains(err.Error(), "--await-start") {
		t.Errorf("timeout: %v", err)
	}
	if code, _ := get(t, endpoint(t, in).URL+"/ready"); code != http.StatusServiceUnavailable {
		t.Errorf("/ready after giving up: %d", code)
	}
	in = NewInstance(0, 2)
	srv := endpoint(t, in)
	errc := make(chan error, 1)
	go func() {
		_, err := in.AwaitStart(context.Background(), time.Hour)
		errc <- err
	}()
	waitState(t, in, Ready)
	fleet(srv.URL).Abort(context.Background(), "instance 1 is missing")
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "instance 1 is missing") {
		t.Errorf("abort: %v", err)
	}
	if in.Status().State != Aborted {
		t.Errorf("state after abort: %s", in.Status().State)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if at, err := NewInstance(0, 1).AwaitStart(ctx, time.Hour); err != nil || at.IsZero() {
		t.Errorf("interrupted: %v %v (want now: the run starts and stops at once)", at, err)
	}
}

// TestFleet: the start command's side over three instances, one of them
// late: it waits for it, starts all at one time, collects all results.
func TestFleet(t *testing.T) {
	var ins []*Instance
	var urls []string
	for k := 0; k < 3; k++ {
		in := NewInstance(k, 3)
		ins = append(ins, in)
		urls = append(urls, endpoint(t, in).URL)
	}
	starts := make([]time.Time, 3)
	var wg sync.WaitGroup
	for k, in := range ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k == 2 {
				waitState(t, ins[0], Ready) // the late one
				time.Sleep(50 * time.Millisecond)
			}
			at, err := in.AwaitStart(context.Background(), time.Minute)
			if err != nil {
				t.Error(err)
				return
			}
			starts[k] = at
			in.Finish([]byte(fmt.Sprintf(`{"k": %d}`, k)))
		}()
	}
	f := fleet(urls...)
	var progress []string
	f.Progress = func(format string, args ...any) { progress = append(progress, fmt.Sprintf(format, args...)) }
	if err := f.WaitReady(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(time.Second).UTC()
	if err := f.Start(context.Background(), at); err != nil {
		t.Fatal(err)
	}
	got := f.Collect(context.Background(), time.Now().Add(time.Minute))
	wg.Wait()
	for k, r := range got {
		if r.Err != nil || string(r.Data) != fmt.Sprintf(`{"k": %d}`, k) || !starts[k].Equal(at) {
			t.Errorf("instance %d: %v %s, started %v", k, r.Err, r.Data, starts[k])
		}
	}
	if last := progress[len(progress)-1]; !strings.Contains(strings.Join(progress, ""), "Instances ready: 3 of 3") {
		t.Errorf("progress: %q (last %q)", progress, last)
	}
}

// TestFleetMissingInstance: an instance that never comes is named, after
// the timeout, with why.
func TestFleetMissingInstance(t *testing.T) {
	in := NewInstance(0, 2)
	srv := endpoint(t, in)
	go func() { _, _ = in.AwaitStart(context.Background(), time.Minute) }()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close() // nothing listens there
	f := fleet(srv.URL, gone.URL)
	err := f.WaitReady(context.Background(), 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "1 of 2 instances not ready after 300ms: instance 1 at "+gone.URL) ||
		!strings.Contains(err.Error(), "refused") {
		t.Errorf("missing instance: %v", err)
	}
}

// TestFleetWrongInstance: endpoints given in another order than the
// instances' own K, or an instance of an earlier run, are refused.
func TestFleetWrongInstance(t *testing.T) {
	a, b := NewInstance(1, 2), NewInstance(0, 2)
	go func() { _, _ = a.AwaitStart(context.Background(), time.Minute) }()
	waitState(t, a, Ready)
	if err := fleet(endpoint(t, a).URL, endpoint(t, b).URL).WaitReady(context.Background(), time.Second); err == nil || !strings.Contains(err.Error(), "is instance 1/2, but is given as instance 0 of 2") {
		t.Errorf("swapped: %v", err)
	}
	c := NewInstance(0, 1)
	c.Finish(nil)
	if err := fleet(endpoint(t, c).URL).WaitReady(context.Background(), time.Second); err == nil || !strings.Contains(err.Error(), "an instance of an earlier run") {
		t.Errorf("finished: %v", err)
	}
}

// TestCollectLostInstance: an instance that stops answering during the
// run is given up after Lost, the others collected.
func TestCollectLostInstance(t *testing.T) {
	ok := NewInstance(0, 2)
	ok.Finish([]byte(`{}`))
	lost := NewInstance(1, 2)
	lostSrv := endpoint(t, lost)
	lostSrv.Close()
	f := fleet(endpoint(t, ok).URL, lostSrv.URL)
	f.Lost = 100 * time.Millisecond
	got := f.Collect(context.Background(), time.Time{})
	if got[0].Err != nil || got[1].Err == nil || !strings.Contains(got[1].Err.Error(), "did not answer for 100ms") {
		t.Errorf("collect: %+v", got)
	}
}

func TestExpandURLs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		n    int
		want string
	}{
		{[]string{"http://sb-{K}.sb:9100"}, 3, "http://sb-0.sb:9100 http://sb-1.sb:9100 http://sb-2.sb:9100"},
		{[]string{"http://a:1/", "http://b:2"}, 0, "http://a:1 http://b:2"},
		{[]string{"http://a:1", "http://b:2"}, 3, "error: 2 endpoints for --instances=3"},
		{[]string{"http://sb-{K}:1"}, 0, "error: http://sb-{K}:1: {K} needs --instances=N"},
		{[]string{"sb-0:9100"}, 0, "error: sb-0:9100: not an http:// endpoint"},
		{nil, 0, "error: no instance endpoint given"},
	} {
		urls, err := ExpandURLs(tc.args, tc.n)
		got := strings.Join(urls, " ")
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("ExpandURLs(%q, %d) = %q, want %q", tc.args, tc.n, got, tc.want)
		}
	}
}

func TestCheckStartTime(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		at   time.Time
		want string
	}{
		{now.Add(30 * time.Second), ""},
		{now.Add(-time.Hour), ""}, // past: taken, the run warns it begins late
		{now.Add(2 * time.Hour), "2026-05-01T14:00:00Z is 2 hours ahead: more than 60 minutes ahead is refused"},
		{time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC), "is 72 years ahead"},
	} {
		err := CheckStartTime(tc.at, now, MaxStartAhead)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckStartTime(%v) = %v, want %q", tc.at, err, tc.want)
		}
	}
}
