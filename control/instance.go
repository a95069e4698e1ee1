// Package control lets the instances of a distributed run start together
// and hand over their results with no shared volume, over each instance's
// HTTP endpoint (--metrics-addr), the way grafana/k6-operator starts its
// runners: an instance run with --await-start connects and initialises,
// reports ready, and waits for the one start time that the start command
// gives every instance once all are ready; after the run it serves its
// results file until the start command, now the merge step, has fetched it.
//
// The instance's side is Instance; the start command's is Fleet.
package control

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// State is where an instance is, as its /status says.
type State string

// An instance's states, in order.
const (
	Initializing State = "initializing" // connecting, thread_init
	Ready        State = "ready"        // waiting for the start time
	Running      State = "running"      // given its start time
	Finished     State = "finished"     // its results are served
	Aborted      State = "aborted"      // the start command gave up before the start
)

// Status is an instance's /status.
type Status struct {
	State State `json:"state"`
	// Instance and Instances are --instance=K/N.
	Instance  int        `json:"instance"`
	Instances int        `json:"instances"`
	StartAt   *time.Time `json:"start_at,omitempty"`
}

// startRequest is the body of POST /start.
type startRequest struct {
	StartAt time.Time `json:"start_at"`
}

// abortRequest is the body of POST /abort.
type abortRequest struct {
	Reason string `json:"reason"`
}

// MaxStartAhead is how far ahead a start time sent to an instance may be:
// the start command sends one a few seconds ahead; one hours ahead is a
// clock or a mistake, and would keep the instance idle.
const MaxStartAhead = time.Hour

// CheckStartTime refuses a start time more than maxAhead after now. One in
// the past is taken: the run then begins late, with a warning.
func CheckStartTime(at, now time.Time, maxAhead time.Duration) error {
	if ahead := at.Sub(now); ahead > maxAhead {
		return fmt.Errorf("%s is %s ahead: more than %s ahead is refused (a mistyped date would keep the run idle)", at.UTC().Format(time.RFC3339), roundAhead(ahead), roundAhead(maxAhead))
	}
	return nil
}

// roundAhead prints a long wait in the unit it is best read in.
func roundAhead(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d >= 2*365*day:
		return fmt.Sprintf("%d years", int(d/(365*day)))
	case d >= 2*day:
		return fmt.Sprintf("%d days", int(d/day))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", int(d/time.Hour))
	case d >= 2*time.Minute:
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	default:
		return d.Round(time.Second).String()
	}
}

// Instance is one instance's side: its state and the handlers of its
// endpoint. The run tells it where it is (AwaitStart, Finish); the start
// command asks and tells through the handlers.
type Instance struct {
	mu      sync.Mutex
	status  Status
	start   chan time.Time // the start command's time, once
	abort   chan string    // the start command's reason to give up, once
	results []byte
	fetched chan struct{}
	once    sync.Once
	// now is the clock, for tests.
	now func() time.Time
}

// NewInstance is instance k of n, initialising.
func NewInstance(k, n int) *Instance {
	return &Instance{status: Status{State: Initializing, Instance: k, Instances: n},
		start: make(chan time.Time, 1), abort: make(chan string, 1), fetched: make(chan struct{}), now: time.Now}
}

// Handle registers the endpoint's paths on mux: GET /ready (200 once
// initialised: the readiness probe), GET /status, POST /start, POST
// /abort, GET /results.
func (in *Instance) Handle(mux *http.ServeMux) {
	mux.HandleFunc("GET /ready", in.serveReady)
	mux.HandleFunc("GET /status", in.serveStatus)
	mux.HandleFunc("POST /start", in.serveStart)
	mux.HandleFunc("POST /abort", in.serveAbort)
	mux.HandleFunc("GET /results", in.serveResults)
}

// Status is the instance's status now.
func (in *Instance) Status() Status {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.status
}

func (in *Instance) setState(s State) {
	in.mu.Lock()
	in.status.State = s
	in.mu.Unlock()
}

// AwaitStart reports the instance ready and waits, at most timeout, for
// the start command's time. Interrupted (SIGINT), it returns now: the run
// then stops as soon as it starts.
func (in *Instance) AwaitStart(ctx context.Context, timeout time.Duration) (time.Time, error) {
	in.setState(Ready)
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case at := <-in.start:
		return at, nil
	case reason := <-in.abort:
		return time.Time{}, fmt.Errorf("the start command gave up: %s", reason)
	case <-t.C:
		in.setState(Aborted)
		return time.Time{}, fmt.Errorf("no start time within %s (--await-start): is 'sysbench-go start' running, for every instance?", timeout)
	case <-ctx.Done():
		return in.now(), nil
	}
}

// Finish makes the results file available at /results (nil: the run wrote
// none, and /results says so).
func (in *Instance) Finish(results []byte) {
	in.mu.Lock()
	in.results = results
	in.status.State = Finished
	in.mu.Unlock()
}

// WaitFetched waits until the results have been fetched once, at most
// timeout, or until ctx ends (SIGINT, SIGTERM).
func (in *Instance) WaitFetched(ctx context.Context, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-in.fetched:
		return nil
	case <-t.C:
		return fmt.Errorf("the results were not fetched within %s (--serve-results)", timeout)
	case <-ctx.Done():
		return nil
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// problemAnswer is an error answer of the endpoint.
type problemAnswer struct {
	Error  string `json:"error"`
	Status Status `json:"status"`
}

func problem(w http.ResponseWriter, code int, msg string, st Status) {
	writeJSON(w, code, problemAnswer{msg, st})
}

func (in *Instance) serveReady(w http.ResponseWriter, _ *http.Request) {
	st := in.Status()
	if st.State == Initializing || st.State == Aborted {
		http.Error(w, string(st.State), http.StatusServiceUnavailable)
		return
	}
	_, _ = io.WriteString(w, string(st.State)+"\n")
}

func (in *Instance) serveStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, in.Status())
}

// decodeBody reads a small JSON request body strictly.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(io.LimitReader(r.Body, 1<<16))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func (in *Instance) serveStart(w http.ResponseWriter, r *http.Request) {
	var req startRequest
	if err := decodeBody(r, &req); err != nil || req.StartAt.IsZero() {
		problem(w, http.StatusBadRequest, `the body is not {"start_at": "<RFC 3339 time>"}`, in.Status())
		return
	}
	if err := CheckStartTime(req.StartAt, in.now(), MaxStartAhead); err != nil {
		problem(w, http.StatusBadRequest, "start time refused: "+err.Error(), in.Status())
		return
	}
	at := req.StartAt.UTC()
	in.signal(w, func() {
		in.status.State, in.status.StartAt = Running, &at
		in.start <- at
	})
}

func (in *Instance) serveAbort(w http.ResponseWriter, r *http.Request) {
	var req abortRequest
	if err := decodeBody(r, &req); err != nil {
		problem(w, http.StatusBadRequest, `the body is not {"reason": "..."}`, in.Status())
		return
	}
	in.signal(w, func() {
		in.status.State = Aborted
		in.abort <- req.Reason
	})
}

// signal gives a ready instance what the start command tells it (send
// changes its state and hands it over, once: the channels hold one), and
// refuses it to one that is not waiting.
func (in *Instance) signal(w http.ResponseWriter, send func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.status.State != Ready {
		problem(w, http.StatusConflict, "not waiting for a start time: "+string(in.status.State), in.status)
		return
	}
	send()
	writeJSON(w, http.StatusOK, in.status)
}

func (in *Instance) serveResults(w http.ResponseWriter, _ *http.Request) {
	in.mu.Lock()
	st, results := in.status, in.results
	in.mu.Unlock()
	switch {
	case st.State != Finished:
		problem(w, http.StatusConflict, "no results yet: "+string(st.State), st)
		return
	case results == nil:
		problem(w, http.StatusNotFound, "the run wrote no results file", st)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if _, err := w.Write(results); err == nil {
		in.once.Do(func() { close(in.fetched) })
	}
}

// Serve serves in's endpoints alone at addr (HOST:PORT): for a process
// with no metrics server, the start command serving the merged results.
// It returns the address listened on and the function that stops serving
// after the answers being written.
func Serve(addr string, in *Instance) (string, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	in.Handle(mux)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
		<-done
	}
	return ln.Addr().String(), stop, nil
}
