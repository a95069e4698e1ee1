package drivers

import "testing"

func TestCopyText(t *testing.T) {
	cases := []struct {
		in, target, data string
		rows             int
	}{
		{"INSERT INTO sbtest1(k, c, pad) VALUES(1, 'a', 'b'),(2,'c d','e''f')",
			"sbtest1 (k, c, pad)", "1\ta\tb\n2\tc d\te'f\n", 2},
		{"insert into t values (-1.5, NULL, TRUE, false, 2e3)", "t", "-1.5\t\\N\tt\tf\t2e3\n", 1},
		{"INSERT INTO s.t (a) VALUES ('tab\there'), ('new\nline');", "s.t (a)", "tab\\there\nnew\\nline\n", 2},
		{"INSERT INTO t (a) VALUES ('back\\slash')", "t (a)", "back\\\\slash\n", 1},
	}
	for _, c := range cases {
		target, data, rows, ok := CopyText(nil, c.in, false)
		if !ok || target != c.target || string(data) != c.data || rows != c.rows {
			t.Errorf("CopyText(%q) = %q, %q, %d, %v; want %q, %q, %d", c.in, target, data, rows, ok, c.target, c.data, c.rows)
		}
	}
	refused := []string{
		"INSERT INTO t (a) VALUES (now())",
		"INSERT INTO t (a, b) VALUES (1)",
		"INSERT INTO t (a) VALUES (1) ON CONFLICT DO NOTHING",
		"INSERT INTO t (a) VALUES (DEFAULT)",
		"INSERT INTO t (a) VALUES ('unterminated)",
		"INSERT INTO t (a) VALUES (E'x')",
		"INSERT INTO t (a) VALUES (1abc)",
		"INSERT INTO t (a) SELECT 1",
		"UPDATE t SET a = 1",
		"INSERT INTO \"T\" (a) VALUES (1)",
	}
	for _, q := range refused {
		if _, _, _, ok := CopyText(nil, q, false); ok {
			t.Errorf("CopyText(%q) accepted", q)
		}
	}
	if _, _, _, ok := CopyText(nil, "INSERT INTO t (a) VALUES ('a\\b')", true); ok {
		t.Error("a backslash is refused when it may be an escape")
	}
	// The destination buffer is reused.
	buf := make([]byte, 0, 64)
	_, data, _, _ := CopyText(buf, "INSERT INTO t (a) VALUES (1)", false)
	if &data[0] != &buf[:1][0] {
		t.Error("CopyText did not append to dst")
	}
}
