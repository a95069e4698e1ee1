package pgsql

import (
	"context"
	"testing"

	"github.com/sysbench-go/sysbench-go/drivers"
	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// TestCopyDeclinesTargets: COPY does not stand for an INSERT into a view,
// a table with a rule or row security, or generated columns, nor for rows
// that leave columns to their defaults without a column list; the batch
// is left to the INSERT (handled false, nothing done). A plain table takes
// it, also after being re-created with other column types.
func TestCopyDeclinesTargets(t *testing.T) {
	d, _ := open(t, drivers.PSAuto)
	c := testenv.Connect(t, d)
	bl := c.(drivers.BulkLoader)
	ctx := context.Background()
	for _, q := range []string{
		"DROP VIEW IF EXISTS cp_view", "DROP TABLE IF EXISTS cp_plain, cp_rule, cp_log, cp_gen, cp_rls, cp_ident",
		"CREATE TABLE cp_plain (a INTEGER, b TEXT)",
		"CREATE VIEW cp_view AS SELECT a, b FROM cp_plain",
		"CREATE TABLE cp_rule (a INTEGER, b TEXT)", "CREATE TABLE cp_log (a INTEGER, b TEXT)",
		"CREATE RULE cp_redirect AS ON INSERT TO cp_rule DO INSTEAD INSERT INTO cp_log VALUES (NEW.a, NEW.b)",
		"CREATE TABLE cp_gen (a INTEGER, b TEXT, c INTEGER GENERATED ALWAYS AS (a * 2) STORED)",
		"CREATE TABLE cp_rls (a INTEGER, b TEXT)", "ALTER TABLE cp_rls ENABLE ROW LEVEL SECURITY",
		"CREATE TABLE cp_ident (a INTEGER GENERATED ALWAYS AS IDENTITY, b TEXT)",
	} {
		testenv.MustQuery(t, c, q)
	}
	t.Cleanup(func() {
		c.Query(ctx, "DROP VIEW IF EXISTS cp_view")
		c.Query(ctx, "DROP TABLE IF EXISTS cp_plain, cp_rule, cp_log, cp_gen, cp_rls, cp_ident")
	})
	for _, q := range []string{
		"INSERT INTO cp_view (a, b) VALUES (1, 'x')",
		"INSERT INTO cp_rule (a, b) VALUES (1, 'x')",
		"INSERT INTO cp_gen (a, b) VALUES (1, 'x')",
		"INSERT INTO cp_rls (a, b) VALUES (1, 'x')",
		"INSERT INTO cp_ident (b) VALUES ('x')",
		"INSERT INTO cp_plain VALUES (1)", // b left to its default
		"INSERT INTO cp_plain (a, nosuch) VALUES (1, 'x')",
		"INSERT INTO cp_nosuch (a) VALUES (1)",
		"INSERT INTO cp_plain (b, a) VALUES (1, 2)", // a number into text
	} {
		if _, handled, err := bl.BulkInsert(ctx, q); handled || err != nil {
			t.Errorf("%s: taken (%v, %v)", q, handled, err)
		}
	}
	if _, handled, err := bl.BulkInsert(ctx, "INSERT INTO CP_PLAIN (B, A) VALUES ('x', 1), ('y', -2)"); !handled || err != nil {
		t.Errorf("a plain table (names folded): handled %v, %v", handled, err)
	}
	// The types are read for every batch: the same text into a table
	// re-created with a float column is taken, and stores what it says.
	testenv.MustQuery(t, c, "DROP VIEW cp_view")
	testenv.MustQuery(t, c, "DROP TABLE cp_plain")
	testenv.MustQuery(t, c, "CREATE TABLE cp_plain (a DOUBLE PRECISION, b TEXT)")
	if _, handled, err := bl.BulkInsert(ctx, "INSERT INTO cp_plain (a, b) VALUES (2.5e3, 'z')"); !handled || err != nil {
		t.Errorf("re-created table: handled %v, %v", handled, err)
	}
	testenv.MustQuery(t, c, "DROP TABLE cp_plain")
	testenv.MustQuery(t, c, "CREATE TABLE cp_plain (a INTEGER, b TEXT)")
	if _, handled, _ := bl.BulkInsert(ctx, "INSERT INTO cp_plain (a, b) VALUES (2.5e3, 'z')"); handled {
		t.Error("an exponent form into an integer column taken after the table was re-created")
	}
}
