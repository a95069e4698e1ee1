package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// tsharkExchange is an execute and its response as Wireshark's own
// dissectors see them.
type tsharkExchange struct {
	client     uint16
	start, end time.Time
}

// tsharkExchanges pairs the executes of a fixture from tshark's dissection,
// independently of our pairing: a request is a frame tshark decodes as an
// execute (MySQL command 23; PostgreSQL's Execute message), its end the
// first frame from the server to that client that tshark decodes as a
// response (MySQL: every response of these captures is one segment) or as
// holding PostgreSQL's ReadyForQuery.
func tsharkExchanges(t *testing.T, tshark, file, proto string, port uint16) []tsharkExchange {
	t.Helper()
	field := map[string]string{"mysql": "_ws.col.Info", "pgsql": "pgsql.type"}[proto]
	out, err := exec.Command(tshark, "-r", "testdata/"+file, "-d", fmt.Sprintf("tcp.port==%d,%s", port, proto),
		"-T", "fields", "-E", "separator=/t", "-e", "frame.time_epoch", "-e", "tcp.srcport", "-e", "tcp.dstport", "-e", field).Output()
	if err != nil {
		t.Fatalf("tshark: %v", err)
	}
	open := map[uint16]time.Time{}
	var got []tsharkExchange
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 4 {
			continue
		}
		ts := epoch(t, f[0])
		src, _ := strconv.Atoi(f[1])
		dst, _ := strconv.Atoi(f[2])
		what := f[3]
		if uint16(dst) == port {
			isExec := proto == "mysql" && strings.Contains(what, "Execute Statement") ||
				proto == "pgsql" && slices.Contains(strings.Split(what, ","), "Execute")
			if isExec {
				open[uint16(src)] = ts
			}
			continue
		}
		start, ok := open[uint16(dst)]
		if !ok {
			continue
		}
		ends := proto == "mysql" && strings.Contains(what, "Response") ||
			proto == "pgsql" && strings.Contains(what, "Ready for query")
		if ends {
			got = append(got, tsharkExchange{uint16(dst), start, ts})
			delete(open, uint16(dst))
		}
	}
	return got
}

// epoch reads tshark's frame.time_epoch (seconds.nanoseconds).
func epoch(t *testing.T, s string) time.Time {
	t.Helper()
	sec, frac, _ := strings.Cut(s, ".")
	secs, err1 := strconv.ParseInt(sec, 10, 64)
	frac = (frac + "000000000")[:9]
	nanos, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("tshark time %q", s)
	}
	return time.Unix(secs, nanos)
}

// Our pairing against Wireshark's dissectors on the recorded captures:
// the same executes, starting and ending on the same frames.
func TestPairingMatchesTshark(t *testing.T) {
	tshark := testenv.Tool(t, "tshark", "apt-get install tshark")
	for _, fx := range []struct {
		file, proto string
		port        uint16
	}{{"mysql.pcapng", "mysql", fixtureMySQLPort}, {"pgsql.pcapng", "pgsql", fixturePgSQLPort}} {
		t.Run(fx.proto, func(t *testing.T) {
			want := tsharkExchanges(t, tshark, fx.file, fx.proto, fx.port)
			exchanges, _ := fixture(t, fx.file, fx.proto, fx.port)
			var got []tsharkExchange
			for _, e := range exchanges {
				if e.Kind == KindExecute {
					got = append(got, tsharkExchange{e.Client.Port(), e.Start, e.End})
				}
			}
			order := func(a, b tsharkExchange) int { return a.start.Compare(b.start) }
			slices.SortFunc(want, order)
			slices.SortFunc(got, order)
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("we paired %d executes, tshark %d", len(got), len(want))
			}
			for i := range want {
				if got[i].client != want[i].client || !got[i].start.Equal(want[i].start) || !got[i].end.Equal(want[i].end) {
					t.Errorf("execute %d: ours %d %v..%v, tshark's %d %v..%v", i,
						got[i].client, got[i].start.UnixNano(), got[i].end.UnixNano(), want[i].client, want[i].start.UnixNano(), want[i].end.UnixNano())
				}
			}
		})
	}
}
