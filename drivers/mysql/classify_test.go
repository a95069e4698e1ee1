package mysql

import "testing"

func TestMultiStatementText(t *testing.T) {
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES (1, 'a-b'), (2, 'c')": false,
		"SELECT 1; SELECT 2":                        true,
		"SELECT 1;":                                 false,
		"SELECT 1;  -- trailing comment":            false,
		"SELECT ';'":                                false,
		"SELECT 'it''s;'; SELECT 2":                 true,
		"SELECT `a;b` FROM t":                       false,
		"SELECT 1 /* ; */":                          false,
	} {
		if got := multiStatement(q); got != want {
			t.Errorf("multiStatement(%q) = %v, want %v", q, got, want)
		}
	}
}

func TestReturnsRowsText(t *testing.T) {
	bulk := "INSERT INTO sbtest1(id, k, c, pad) VALUES"
	for i := 0; i < 2000; i++ {
		bulk += "(1, 2, '83868641912-28773972837-60736120486', '67847967377-48000963322'),"
	}
	bulk += "(3, 4, 'r', 'R')"
	for q, want := range map[string]bool{
		"SELECT c FROM sbtest1 WHERE id=?":                 true,
		"  (SELECT 1)":                                     true,
		"UPDATE sbtest1 SET k=k+1 WHERE id=?":              false,
		"INSERT INTO t VALUES (1) RETURNING id":            true,
		"insert into t values (1) returning id":            true,
		"DELETE FROM t WHERE x='a' ReTurNing *":            true,
		"INSERT INTO t VALUES ('returning')":               false,
		"REPLACE INTO t VALUES (1, 'no return here')":      false,
		"INSERT INTO returning_log VALUES (1)":             false,
		"INSERT INTO t VALUES (1) RETURNIN":                false,
		"DELETE FROM t WHERE note = 'x' AND y RETURNING y": true,
		bulk:                   false,
		bulk + " RETURNING id": true,
	} {
		if got := returnsRows(q); got != want {
			t.Errorf("returnsRows(%.60q) = %v, want %v", q, got, want)
		}
	}
}
