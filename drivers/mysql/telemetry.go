package mysql

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.Observable = (*drv)(nil)

// Observe connects to the first target, outside the round-robin, and
// starts recording the run's connections (those opened from now on).
func (d *drv) Observe(ctx context.Context) (drivers.Observer, error) {
	c := &conn{d: d, t: d.s.targets[0], n: 0, observer: true}
	if err := c.connect(ctx); err != nil {
		return nil, fmt.Errorf("--server-stats: cannot connect to the server: %v", connectError(err, c.t).Msg)
	}
	d.sessions.Track()
	return &observer{c: c}, nil
}

type observer struct {
	c *conn
	// queries counts the observer's own statements (Questions counts
	// them too); only the sampler's goroutine uses the observer.
	queries atomic.Uint64
}

// query runs one of the observer's statements.
func (o *observer) query(ctx context.Context, q string) ([][]string, error) {
	o.queries.Add(1)
	return drivers.QueryRows(ctx, o.c, q)
}

// Own: the statements sent, as Questions counts them, server-wide (SHOW
// GLOBAL STATUS has no narrower scope).
func (o *observer) Own() []drivers.Work {
	return []drivers.Work{{Scope: "server", Counter: "Questions", What: "statements",
		Run: o.c.d.sessions.Work(), Observer: o.queries.Load()}}
}

// Absent: a MySQL or MariaDB server has what is read.
func (o *observer) Absent() []string { return nil }

func (o *observer) Close() error { return o.c.Close() }

func (o *observer) Endpoint() drivers.Endpoint { return o.c.t.endpoint() }

// settingNames are the variables that explain bytes written and latency
// (seed 000's list); innodb_redo_log_capacity replaces the log file size
// on MySQL 8.0.30 and later.
var settingNames = []string{"version", "log_bin", "sync_binlog", "innodb_flush_log_at_trx_commit",
	"innodb_doublewrite", "innodb_buffer_pool_size", "innodb_log_file_size", "innodb_redo_log_capacity",
	"binlog_format", "transaction_isolation", "tx_isolation", "innodb_flush_method", "performance_schema"}

func (o *observer) Settings(ctx context.Context) ([]drivers.Setting, []string, error) {
	rows, err := o.query(ctx, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('"+strings.Join(settingNames, "','")+"')")
	if err != nil {
		return nil, nil, err
	}
	out := drivers.PickSettings(rows, settingNames)
	// MariaDB has both names of the isolation level: keep the newer.
	if slices.ContainsFunc(out, func(s drivers.Setting) bool { return s.Name == "transaction_isolation" }) {
		out = slices.DeleteFunc(out, func(s drivers.Setting) bool { return s.Name == "tx_isolation" })
	}
	return out, nil, nil
}

// gauges are the status variables that are levels, not counts.
var gauges = map[string]bool{"Threads_running": true, "Threads_connected": true,
	"Innodb_buffer_pool_pages_dirty": true, "Innodb_row_lock_current_waits": true}

func (o *observer) Counters(ctx context.Context) (map[string]float64, map[string]float64, []string, error) {
	rows, err := o.query(ctx, "SHOW GLOBAL STATUS")
	if err != nil {
		return nil, nil, nil, err
	}
	counters, levels := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil {
			continue
		}
		if gauges[r[0]] {
			levels[r[0]] = v
		} else {
			counters[r[0]] = v
		}
	}
	counters[drivers.WALBytes] = counters["Innodb_os_log_written"]
	counters[drivers.DataBytes] = counters["Innodb_data_written"]
	if v, ok := counters["Binlog_bytes_written"]; ok {
		counters[drivers.BinlogBytes] = v
	}
	return counters, levels, nil, nil
}

// Waits samples the processlist states of the run's own sessions, by
// their ids (performance_schema's wait events are off by default on
// MariaDB and need instruments enabled).
func (o *observer) Waits(ctx context.Context) ([]string, error) {
	rows, err := o.query(ctx, "SELECT ID, COMMAND, STATE FROM information_schema.PROCESSLIST "+
		"WHERE USER = SUBSTRING_INDEX(USER(), '@', 1) AND ID <> CONNECTION_ID()")
	if err != nil {
		return nil, err
	}
	ours := o.c.d.sessions.IDs()
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		if !ours[r[0]] {
			continue
		}
		r = r[1:]
		switch {
		case r[0] == "Sleep":
			out = append(out, "Client:idle")
		case r[1] == "":
			out = append(out, "Running:"+r[0])
		default:
			out = append(out, "State:"+r[1])
		}
	}
	return out, nil
}
