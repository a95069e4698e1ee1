package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
)

// OwnDatabase returns the kind server of the environment (the test skips,
// or fails under CI=true, when there is none) pointed at an empty
// database of the test's own, dropped when the test ends. A test whose
// runs create tables works there, so that it can call t.Parallel()
// beside the others: the tables of the server's default database are
// nobody's.
func OwnDatabase(t testing.TB, kind string) Server {
	t.Helper()
	return RequireServer(t, kind).OwnDatabase(t)
}

// OwnDatabase creates an empty database on the server s, named
// sbtest_t<random> (the test servers grant sbtest all rights on
// sbtest_%), drops it when the test ends, and returns s pointed at it.
func (s Server) OwnDatabase(t testing.TB) Server {
	t.Helper()
	var b [5]byte
	_, _ = rand.Read(b[:])
	own := s
	own.DB = "sbtest_t" + hex.EncodeToString(b[:])
	create := "CREATE DATABASE " + own.DB
	if s.Kind == "pgsql" {
		// PostgreSQL 15 and later copy the template through the WAL by
		// default: as files, its few MiB cost the server half the CPU
		// (0.1 CPU-s a database here, and the suite makes scores of them).
		// Older servers have no STRATEGY and take the plain statement.
		if err := s.admin(create + " STRATEGY = FILE_COPY"); err == nil {
			create = ""
		}
	}
	if create != "" {
		if err := s.admin(create); err != nil {
			t.Fatalf("create database %s: %v", own.DB, err)
		}
	}
	t.Cleanup(func() {
		// A connection of its own: a test may have restarted the server
		// or killed sessions meanwhile.
		drop := "DROP DATABASE IF EXISTS " + own.DB
		if s.Kind == "pgsql" {
			drop += " WITH (FORCE)"
		}
		if err := s.admin(drop); err != nil {
			t.Logf("%s: %v", drop, err)
		}
	})
	return own
}

// admin runs q on a connection of its own to the server's default
// database.
func (s Server) admin(q string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.Kind == "pgsql" {
		c, err := pgconn.Connect(ctx, s.PgURL(s.DB))
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		_, err = c.Exec(ctx, q).ReadAll()
		return err
	}
	mc := s.MySQLConfig(s.DB)
	mc.Logger = &gomysql.NopLogger{}
	conn, err := gomysql.NewConnector(mc)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	_, err = db.ExecContext(ctx, q)
	return err
}
