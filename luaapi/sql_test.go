package luaapi

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/drivers/mysql"
	"github.com/sysbench-go/sysbench-go/drivers/pgsql"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
	"github.com/sysbench-go/sysbench-go/logging"
	bundled "github.com/sysbench-go/sysbench-go/lua"
	"github.com/sysbench-go/sysbench-go/metrics"
)

// TestSQLMisuse runs testdata/sql_misuse.lua, one event misusing the SQL
// API, on each server. What it prints, with the API's and the drivers'
// ALERT and FATAL lines in between, must be what sysbench 1.0.20 prints
// for the same script on the same servers: the files sql_misuse.*.out
// hold that output (from `sysbench --verbosity=1 --events=1 --db-driver=D
// <server options> testdata/sql_misuse.lua run` in this directory, with
// the MySQL database name as {db}). That covers the errors raised and
// their file:line prefixes, the values returned, the ALERT texts and the
// "(last message repeated N times)" lines.
func TestSQLMisuse(t *testing.T) {
	for _, kind := range []string{"mysql", "pgsql"} {
		t.Run(kind, func(t *testing.T) {
			s := testenv.RequireServer(t, kind)
			want, err := os.ReadFile("testdata/sql_misuse." + kind + ".out")
			if err != nil {
				t.Fatal(err)
			}
			got := runSQLScript(t, s, "testdata/sql_misuse.lua")
			if w := strings.ReplaceAll(string(want), "{db}", s.DB); got != w {
				t.Errorf("output differs from sysbench 1.0.20's\n%s", testenv.LineDiff(w, got))
			}
		})
	}
}

// runSQLScript runs one event of script in a worker state on the server
// and returns what it printed and logged, in order.
func runSQLScript(t *testing.T, s testenv.Server, script string) string {
	t.Helper()
	out := &testenv.Buffer{}
	lg := logging.New(out, logging.DefaultLevel)
	values := s.Values(nil)
	ctx := context.Background()
	env := &Env{
		Values: values, Drivers: []drivers.Factory{mysql.Factory, pgsql.Factory}, DriverName: s.Kind,
		DriverConfig: drivers.Config{Values: values, Log: lg},
		Log:          lg, Out: lg.Out(), Threads: 1, Command: "run", Bundled: bundled.Scripts, Ctx: ctx,
	}
	sc, err := Load(env, script)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	w, err := sc.NewWorker(ctx, 0, metrics.NewHandle(0))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Event(ctx); err != nil {
		t.Fatalf("event: %v\n%s", err, out)
	}
	if err := w.Done(ctx); err != nil {
		t.Fatal(err)
	}
	env.closeDrivers()
	return out.String()
}
