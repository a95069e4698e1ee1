package drivers

import "testing"

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in   string
		d    Dialect
		want string
	}{
		{"SELECT c FROM sbtest1 WHERE id=42", DialectMySQL, "SELECT c FROM sbtest1 WHERE id=?"},
		{"SELECT c FROM sbtest12 WHERE id BETWEEN 5 AND 104", DialectMySQL, "SELECT c FROM sbtest12 WHERE id BETWEEN ? AND ?"},
		{"UPDATE sbtest1 SET c='it''s here' WHERE id=-7", DialectStandard, "UPDATE sbtest1 SET c=? WHERE id=?"},
		{`UPDATE t SET c="a\"b" WHERE k=1.5e-3`, DialectMySQL, "UPDATE t SET c=? WHERE k=?"},
		{`SELECT "Col1" FROM "t2" WHERE x = 3`, DialectStandard, `SELECT "Col1" FROM "t2" WHERE x = ?`},
		{"SELECT `a1` FROM t  \n\t WHERE x IN (1, 2, 3) -- note 5", DialectMySQL, "SELECT `a1` FROM t WHERE x IN (?, ?, ?)"},
		{"INSERT INTO sbtest1 (id, k, c, pad) VALUES (1, 2, 'x', 'y'), (3, 4, 'z', 'w'),(5,6,'a','b')", DialectMySQL,
			"INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?), ..."},
		{"INSERT INTO t VALUES (?, ?)", DialectMySQL, "INSERT INTO t VALUES (?, ?)"},
		{"SELECT x - 1 FROM t /* 9 */ WHERE y = $1", DialectStandard, "SELECT x - ? FROM t WHERE y = $1"},
		{"BEGIN", DialectMySQL, "BEGIN"},
		{"  COMMIT  ", DialectStandard, "COMMIT"},
	} {
		if got := Normalize(c.in, c.d); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
