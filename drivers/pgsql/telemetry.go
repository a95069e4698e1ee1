package pgsql

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.Observable = (*driver)(nil)

// Observe connects to the first host, outside the round-robin, and starts
// recording the run's connections (those opened from now on).
func (d *driver) Observe(ctx context.Context) (drivers.Observer, error) {
	c := &conn{d: d, n: 0, observer: true}
	if err := c.dial(ctx); err != nil {
		return nil, fmt.Errorf("--server-stats: cannot connect to the server: %v", err)
	}
	d.sessions.Track()
	o := &observer{c: c}
	if v, err := strconv.Atoi(c.pg.ParameterStatus("server_version_num")); err == nil {
		o.version = v
	} else if f := strings.Fields(c.pg.ParameterStatus("server_version")); len(f) > 0 {
		major, _ := strconv.Atoi(strings.Split(f[0], ".")[0])
		o.version = major * 10000
	}
	return o, nil
}

type observer struct {
	c       *conn
	version int // server_version_num: 150004 for 15.4
	// queries counts the observer's own statements, each a transaction
	// of its own on the run's database.
	queries atomic.Uint64
}

// query runs one of the observer's statements.
func (o *observer) query(ctx context.Context, q string) ([][]string, error) {
	o.queries.Add(1)
	return drivers.QueryRows(ctx, o.c, q)
}

// The transactions ended, in this database and on the whole server, as
// pg_stat_database counts them (xact_commit + xact_rollback).
const (
	dbTransactions     = "pg_stat_database.transactions"
	serverTransactions = "all_databases.transactions"
)

// Own: transactions, in this database (for its pg_stat_database figures)
// and on the server (for the rest: WAL, the background writer, I/O).
func (o *observer) Own() []drivers.Work {
	run, own := o.c.d.sessions.Work(), o.queries.Load()
	return []drivers.Work{
		{Scope: "database", Counter: dbTransactions, What: "transactions", Prefix: "pg_stat_database.", Run: run, Observer: own},
		{Scope: "server", Counter: serverTransactions, What: "transactions", Run: run, Observer: own},
	}
}

// Absent: the views of newer versions this server lacks.
func (o *observer) Absent() []string {
	var out []string
	if o.version < 140000 {
		out = append(out, "pg_stat_wal (PostgreSQL 14 and later): no WAL bytes")
	}
	if o.version < 160000 {
		out = append(out, "pg_stat_io (PostgreSQL 16 and later)")
	}
	return out
}

func (o *observer) Close() error { return o.c.Close() }

func (o *observer) Endpoint() drivers.Endpoint {
	host, port := o.c.d.endpoint(0)
	if o.c.d.sockets {
		return drivers.Endpoint{Socket: host, Port: port}
	}
	return drivers.Endpoint{Host: host, Port: port}
}

var settingNames = []string{"server_version", "fsync", "synchronous_commit", "wal_level", "full_page_writes",
	"shared_buffers", "max_wal_size", "checkpoint_timeout", "default_transaction_isolation", "wal_compression",
	"effective_io_concurrency"}

func (o *observer) Settings(ctx context.Context) ([]drivers.Setting, []string, error) {
	rows, err := o.query(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('"+
		strings.Join(settingNames, "','")+"')")
	if err != nil {
		return nil, nil, err
	}
	out := drivers.PickSettings(rows, settingNames)
	return out, nil, nil
}

func (o *observer) Counters(ctx context.Context) (map[string]float64, map[string]float64, []string, error) {
	counters, gauges := map[string]float64{}, map[string]float64{}
	read := func(prefix, q string) error {
		rows, err := o.query(ctx, q)
		if err != nil {
			return err
		}
		// One row of columns: the query names them "name=value" pairs.
		for _, r := range rows {
			for i := 0; i+1 < len(r); i += 2 {
				if v, err := strconv.ParseFloat(r[i+1], 64); err == nil {
					counters[prefix+r[i]] = v
				}
			}
		}
		return nil
	}
	if err := read("pg_stat_database.", "SELECT 'xact_commit', xact_commit, 'xact_rollback', xact_rollback, "+
		"'blks_read', blks_read, 'blks_hit', blks_hit, 'tup_inserted', tup_inserted, 'tup_updated', tup_updated, "+
		"'tup_deleted', tup_deleted, 'temp_bytes', temp_bytes, 'deadlocks', deadlocks, "+
		"'transactions', xact_commit + xact_rollback "+
		"FROM pg_stat_database WHERE datname = current_database()"); err != nil {
		return nil, nil, nil, err
	}
	if err := read("all_databases.", "SELECT 'transactions', COALESCE(SUM(xact_commit + xact_rollback), 0) FROM pg_stat_database"); err != nil {
		return nil, nil, nil, err
	}
	if o.version >= 140000 {
		if err := read("pg_stat_wal.", "SELECT 'wal_records', wal_records, 'wal_fpi', wal_fpi, 'wal_bytes', wal_bytes FROM pg_stat_wal"); err != nil {
			return nil, nil, nil, err
		}
		counters[drivers.WALBytes] = counters["pg_stat_wal.wal_bytes"]
	}
	// Buffers written to the data files: by checkpoints, the background
	// writer and backends (pg_stat_checkpointer takes the first from 17).
	bgw := "SELECT 'buffers_checkpoint', buffers_checkpoint, 'buffers_clean', buffers_clean, " +
		"'buffers_backend', buffers_backend, 'checkpoints_timed', checkpoints_timed, 'checkpoints_req', checkpoints_req FROM pg_stat_bgwriter"
	if o.version >= 170000 {
		bgw = "SELECT 'buffers_checkpoint', c.buffers_written, 'buffers_clean', b.buffers_clean, " +
			"'checkpoints_timed', c.num_timed, 'checkpoints_req', c.num_requested FROM pg_stat_checkpointer c, pg_stat_bgwriter b"
	}
	if err := read("pg_stat_bgwriter.", bgw); err != nil {
		return nil, nil, nil, err
	}
	if o.version >= 160000 {
		if err := read("pg_stat_io.", "SELECT 'writes', COALESCE(SUM(writes), 0), 'reads', COALESCE(SUM(reads), 0), "+
			"'extends', COALESCE(SUM(extends), 0), 'fsyncs', COALESCE(SUM(fsyncs), 0) FROM pg_stat_io"); err != nil {
			return nil, nil, nil, err
		}
	}
	block := 8192.0
	if rows, err := o.query(ctx, "SELECT current_setting('block_size')"); err == nil && len(rows) == 1 {
		if v, err := strconv.ParseFloat(rows[0][0], 64); err == nil {
			block = v
		}
	}
	b := counters["pg_stat_bgwriter.buffers_checkpoint"] + counters["pg_stat_bgwriter.buffers_clean"] + counters["pg_stat_bgwriter.buffers_backend"]
	counters[drivers.DataBytes] = b * block
	return counters, gauges, nil, nil
}

// Waits samples pg_stat_activity for the run's own backends, by their
// process ids: the wait event of each, "CPU" for one active and not
// waiting, "Client:idle" or "Client:idle in transaction" for one waiting
// for the client.
func (o *observer) Waits(ctx context.Context) ([]string, error) {
	rows, err := o.query(ctx, "SELECT pid, state, COALESCE(wait_event_type, ''), COALESCE(wait_event, '') "+
		"FROM pg_stat_activity WHERE datname = current_database() "+
		"AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
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
		case r[0] == "active" && r[1] != "":
			out = append(out, r[1]+":"+r[2])
		case r[0] == "active":
			out = append(out, "CPU")
		case r[1] == "Client":
			out = append(out, "Client:"+r[0])
		default:
			out = append(out, "Client:"+r[0])
		}
	}
	return out, nil
}
