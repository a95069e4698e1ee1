package builtin

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/engine"
	"github.com/sysbench-go/sysbench-go/logging"
)

// Full runs through the engine, compared with the reference's recorded
// runs with every number masked: same lines, same blank lines, same order.
func TestRunMatchesReferenceShape(t *testing.T) {
	cases := []struct {
		test string
		opts []string
	}{
		{"cpu", []string{"--cpu-max-prime=2000"}},
		{"memory", nil},
		{"threads", []string{"--thread-yields=10"}},
		{"mutex", []string{"--mutex-locks=100", "--mutex-loops=10"}},
		{"fileio", []string{"--file-num=128", "--file-total-size=2M", "--file-test-mode=rndrw"}},
	}
	for _, c := range cases {
		t.Run(c.test, func(t *testing.T) {
			env := testEnv(1, c.opts...)
			var tt engine.Test
			var err error
			if c.test == "fileio" {
				dir := t.TempDir()
				ft, ferr := newFileioIn(env, dir)
				if ferr != nil {
					t.Fatal(ferr)
				}
				fileCommand(t, ft, "prepare")
				tt = ft
			} else {
				tt, err = builtinByName(t, c.test).New(env)
				if err != nil {
					t.Fatal(err)
				}
			}
			cfg := engine.Config{Threads: 1, Time: 200 * time.Millisecond, ForcedShutdown: -1,
				Percentiles: []float64{95}}
			var out bytes.Buffer
			if err := runToEnd(context.Background(), tt, cfg, logging.New(&out, logging.Notice)); err != nil {
				t.Fatalf("run: %v\n%s", err, out.String())
			}
			want := readFile(t, filepath.Join("testdata", "reference", "run."+c.test+".txt"))
			if got := maskNumbers(out.String()); got != maskNumbers(want) {
				t.Errorf("output shape differs from the reference\n--- got\n%s--- want\n%s", got, maskNumbers(want))
			}
		})
	}
}
