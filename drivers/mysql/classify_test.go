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
