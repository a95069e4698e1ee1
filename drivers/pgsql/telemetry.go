package pgsql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/sysbench-go/sysbench-go/drivers"
)

var _ drivers.Observable = (*driver)(nil)

// Observe connects to the first host, outside the round-robin.
func (d *driver) Observe(ctx context.Context) (drivers.Observer, error) {
	c := &conn{d: d, n: 0, observer: true}
	if err := c.dial(ctx); err != nil {
		return nil, fmt.Errorf("--server-stats: cannot connect to the server: %v", err)
	}
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
	rows, err := drivers.QueryRows(ctx, o.c, "SELECT name, current_setting(name) FROM pg_settings WHERE name IN ('"+
		strings.Join(settingNames, "','")+"')")
	if err != nil {
		return nil, nil, err
	}
	out := drivers.PickSettings(rows, settingNames)
	return out, nil, nil
}

func (o *observer) Counters(ctx context.Context) (map[string]float64, map[string]float64, []string, error) {
	counters, gauges := map[string]float64{}, map[string]float64{}
	var notes []string
	read := func(prefix, q string) error {
		rows, err := drivers.QueryRows(ctx, o.c, q)
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
		"'tup_deleted', tup_deleted, 'temp_bytes', temp_bytes, 'deadlocks', deadlocks "+
		"FROM pg_stat_database WHERE datname = current_database()"); err != nil {
		return nil, nil, nil, err
	}
	if o.version >= 140000 {
		if err := read("pg_stat_wal.", "SELECT 'wal_records', wal_records, 'wal_fpi', wal_fpi, 'wal_bytes', wal_bytes FROM pg_stat_wal"); err != nil {
			return nil, nil, nil, err
		}
		counters[drivers.WALBytes] = counters["pg_stat_wal.wal_bytes"]
	} else {
		notes = append(notes, "pg_stat_wal needs PostgreSQL 14")
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
	} else {
		notes = append(notes, "pg_stat_io needs PostgreSQL 16")
	}
	block := 8192.0
	if rows, err := drivers.QueryRows(ctx, o.c, "SELECT current_setting('block_size')"); err == nil && len(rows) == 1 {
		if v, err := strconv.ParseFloat(rows[0][0], 64); err == nil {
			block = v
		}
	}
	b := counters["pg_stat_bgwriter.buffers_checkpoint"] + counters["pg_stat_bgwriter.buffers_clean"] + counters["pg_stat_bgwriter.buffers_backend"]
	counters[drivers.DataBytes] = b * block
	rows, err := drivers.QueryRows(ctx, o.c, "SELECT count(*) FILTER (WHERE state = 'active') FROM pg_stat_activity "+
		"WHERE datname = current_database() AND pid <> pg_backend_pid()")
	if err == nil && len(rows) == 1 {
		if v, err := strconv.ParseFloat(rows[0][0], 64); err == nil {
			gauges["active_backends"] = v
		}
	}
	return counters, gauges, notes, nil
}

// Waits samples pg_stat_activity for the run user's other backends on
// this database: the wait event of each, "CPU" for one active and not
// waiting, "Client:idle" or "Client:idle in transaction" for one waiting
// for the client.
func (o *observer) Waits(ctx context.Context) ([]string, error) {
	rows, err := drivers.QueryRows(ctx, o.c, "SELECT state, COALESCE(wait_event_type, ''), COALESCE(wait_event, '') "+
		"FROM pg_stat_activity WHERE datname = current_database() AND usename = current_user "+
		"AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
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
