package cli

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// TestBulkInsertWidths runs a community script's way of loading integers of
// every width, doubles and decimals (bulk_insert_next of rows built with
// math.random(...) .. ",", which LuaJIT writes in exponent form past
// 10^14) on each server: the bulk insert succeeds and stores the rows that
// the same INSERTs run one by one store, and the rows sysbench 1.0.20
// stores from the same script when it is installed. (The bulk fast paths
// once turned this load into a COPY that PostgreSQL refused.)
func TestBulkInsertWidths(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"pgsql", "mysql"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			s := testenv.OwnDatabase(t, db)
			args := append([]string{"testdata/scripts/bulk_widths.lua"}, append(s.Args(), "prepare")...)
			var ref map[string]string
			if bin, err := exec.LookPath("sysbench"); err == nil {
				out, err := exec.Command(bin, args...).CombinedOutput()
				if err != nil {
					t.Fatalf("sysbench: %v\n%s", err, tail(string(out)))
				}
				ref = widthRows(string(out))
			}
			out, code := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, tail(out))
			}
			got := widthRows(out)
			if got["bulk"] == "" || got["bulk"] != got["plain"] {
				t.Errorf("bulk_insert stored other rows than the INSERTs one by one:%s", testenv.LineDiff(got["plain"], got["bulk"]))
			}
			if got["pieces"] != got["plain"] {
				t.Errorf("bulk_insert_next's pieces stored other rows than the concatenated rows:%s", testenv.LineDiff(got["plain"], got["pieces"]))
			}
			if ref != nil && ref["bulk"] != got["bulk"] {
				t.Errorf("sysbench 1.0.20 stored other rows:%s", testenv.LineDiff(ref["bulk"], got["bulk"]))
			}
		})
	}
}

// widthRows are the tables bulk_widths.lua prints, by name.
func widthRows(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.SplitN(l, " ", 3); len(f) == 3 && f[0] == "row" {
			m[f[1]] += f[2] + "\n"
		}
	}
	return m
}

// tail is the end of a long output, for a failure message.
func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}
