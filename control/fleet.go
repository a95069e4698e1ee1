package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Fleet is the start command's side: the instances' endpoints, asked in
// turn.
type Fleet struct {
	// URLs are the instances' endpoints (http://HOST:PORT), instance K's
	// at K.
	URLs   []string
	Client *http.Client
	// Poll is the time between two rounds of questions.
	Poll time.Duration
	// Lost is how long an instance that was answering may stop answering
	// while the run goes on before the merge goes ahead without it.
	Lost time.Duration
	// Progress is told what happens, a line (without its newline) at a time.
	Progress func(format string, args ...any)
}

// ExpandURLs makes the instances' endpoints from the command's arguments:
// an argument with {K} stands for n endpoints, K from 0 to n-1; others
// are one each.
func ExpandURLs(args []string, n int) ([]string, error) {
	var out []string
	for _, a := range args {
		if !strings.Contains(a, "{K}") {
			out = append(out, strings.TrimSuffix(a, "/"))
			continue
		}
		if n < 1 {
			return nil, fmt.Errorf("%s: {K} needs --instances=N", a)
		}
		for k := 0; k < n; k++ {
			out = append(out, strings.TrimSuffix(strings.ReplaceAll(a, "{K}", strconv.Itoa(k)), "/"))
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no instance endpoint given")
	}
	if n > 0 && len(out) != n {
		return nil, fmt.Errorf("%d endpoints for --instances=%d", len(out), n)
	}
	for _, u := range out {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, fmt.Errorf("%s: not an http:// endpoint", u)
		}
	}
	return out, nil
}

func (f *Fleet) say(format string, args ...any) {
	if f.Progress != nil {
		f.Progress(format, args...)
	}
}

// call makes one request with a short deadline of its own and decodes the
// JSON answer into v (when v is not nil); an answer other than 200 is an
// error with the endpoint's own words.
func (f *Fleet) call(ctx context.Context, method, url string, body, v any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := f.Client.Do(req)
	if err != nil {
		return shortError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<30))
	if err != nil {
		return fmt.Errorf("reading the answer: %v", shortError(err))
	}
	if resp.StatusCode != http.StatusOK {
		var p problemAnswer
		if json.Unmarshal(data, &p) == nil && p.Error != "" {
			return &answerError{code: resp.StatusCode, msg: p.Error, state: p.Status.State}
		}
		return &answerError{code: resp.StatusCode, msg: strings.TrimSpace(resp.Status)}
	}
	if v == nil {
		return nil
	}
	if raw, ok := v.(*[]byte); ok {
		*raw = data
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("not a sysbench-go endpoint (its answer is not what it should be: %v)", err)
	}
	return nil
}

// answerError is an instance's refusal.
type answerError struct {
	code  int
	msg   string
	state State
}

func (e *answerError) Error() string { return e.msg }

// shortError drops the method and URL the HTTP client puts before the
// cause: the caller names the instance.
func shortError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// status asks one instance its status.
func (f *Fleet) status(ctx context.Context, url string) (Status, error) {
	var st Status
	err := f.call(ctx, http.MethodGet, url+"/status", nil, &st)
	return st, err
}

// WaitReady waits until every instance is ready, at most timeout. An
// instance that already runs or has finished (a run started before) is
// an error at once.
func (f *Fleet) WaitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	ready := make([]bool, len(f.URLs))
	why := make([]string, len(f.URLs))
	count := -1
	for {
		n := 0
		for k, u := range f.URLs {
			if ready[k] {
				n++
				continue
			}
			st, err := f.status(ctx, u)
			switch {
			case err != nil:
				why[k] = err.Error()
			case st.State == Ready:
				if st.Instances > 0 && (st.Instance != k || st.Instances != len(f.URLs)) {
					return fmt.Errorf("%s is instance %d/%d, but is given as instance %d of %d", u, st.Instance, st.Instances, k, len(f.URLs))
				}
				ready[k] = true
				n++
			case st.State == Initializing:
				why[k] = "initializing"
			default:
				return fmt.Errorf("%s is %s, not waiting for a start time: an instance of an earlier run?", u, st.State)
			}
		}
		if n != count {
			count = n
			f.say("Instances ready: %d of %d", n, len(f.URLs))
		}
		if n == len(f.URLs) {
			return nil
		}
		if time.Now().After(deadline) {
			var missing []string
			for k, u := range f.URLs {
				if !ready[k] {
					missing = append(missing, fmt.Sprintf("instance %d at %s (%s)", k, u, why[k]))
				}
			}
			return fmt.Errorf("%d of %d instances not ready after %s: %s", len(missing), len(f.URLs), timeout, strings.Join(missing, "; "))
		}
		if err := sleep(ctx, f.Poll); err != nil {
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Start gives every instance the start time at. When one refuses, the
// others that were not started yet are told to give up.
func (f *Fleet) Start(ctx context.Context, at time.Time) error {
	for k, u := range f.URLs {
		if err := f.call(ctx, http.MethodPost, u+"/start", startRequest{StartAt: at}, nil); err != nil {
			err = fmt.Errorf("instance %d at %s refused the start: %v", k, u, err)
			if k > 0 {
				err = fmt.Errorf("%w (instances 0 to %d run without it)", err, k-1)
			}
			f.Abort(ctx, fmt.Sprintf("instance %d could not be started", k))
			return err
		}
	}
	return nil
}

// Abort tells every instance still waiting for a start time to give up,
// so that none waits until its own --await-start ends.
func (f *Fleet) Abort(ctx context.Context, reason string) {
	for k, u := range f.URLs {
		err := f.call(ctx, http.MethodPost, u+"/abort", abortRequest{Reason: reason}, nil)
		if err == nil {
			f.say("Instance %d told to give up", k)
		}
	}
}

// Result is what Collect got from one instance.
type Result struct {
	URL  string
	Data []byte // its results file; nil with Err
	Err  error
}

// Collect waits for every instance to finish and fetches its results
// file: the merge step. An instance that stops answering for Lost while
// others are still running is given up (its Err says so), as is any not
// finished by the deadline (zero: none).
func (f *Fleet) Collect(ctx context.Context, deadline time.Time) []Result {
	out := make([]Result, len(f.URLs))
	lastSeen := make([]time.Time, len(f.URLs))
	done := make([]bool, len(f.URLs))
	now := time.Now()
	for k, u := range f.URLs {
		out[k].URL, lastSeen[k] = u, now
	}
	left := len(f.URLs)
	for left > 0 {
		for k, u := range f.URLs {
			if done[k] {
				continue
			}
			var data []byte
			err := f.call(ctx, http.MethodGet, u+"/results", nil, &data)
			var ae *answerError
			switch {
			case err == nil:
				out[k].Data = data
				f.say("Fetched the results of instance %d (%s)", k, u)
			case errors.As(err, &ae) && ae.state != Finished && ae.state != "":
				lastSeen[k] = time.Now() // still running
				if ae.state != Aborted {
					continue
				}
				out[k].Err = fmt.Errorf("instance %d at %s gave up before the start", k, u)
			case errors.As(err, &ae):
				out[k].Err = fmt.Errorf("instance %d at %s: %v", k, u, err)
			default:
				if time.Since(lastSeen[k]) < f.Lost {
					continue
				}
				out[k].Err = fmt.Errorf("instance %d at %s did not answer for %s: %v", k, u, f.Lost, err)
			}
			done[k] = true
			left--
		}
		if left == 0 {
			break
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			for k, u := range f.URLs {
				if !done[k] {
					out[k].Err = fmt.Errorf("instance %d at %s had not finished by the deadline", k, u)
				}
			}
			break
		}
		if err := sleep(ctx, f.Poll); err != nil {
			for k, u := range f.URLs {
				if !done[k] {
					out[k].Err = fmt.Errorf("instance %d at %s: interrupted while waiting for it", k, u)
				}
			}
			break
		}
	}
	return out
}
