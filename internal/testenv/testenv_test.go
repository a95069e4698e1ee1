package testenv

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	env := map[string]string{"PGSQL_HOST": "db.local", "PGSQL_PASSWORD": "pw", "MYSQL_PORT": "13306"}
	get := func(k string) string { return env[k] }

	s, ok := Lookup("pgsql", get)
	want := Server{Kind: "pgsql", Host: "db.local", Port: "5432", User: "sbtest", Password: "pw", DB: "sbtest"}
	if !ok || s != want {
		t.Errorf("Lookup(pgsql) = %+v, %v; want %+v, true", s, ok, want)
	}
	if s, ok := Lookup("mysql", get); ok {
		t.Errorf("Lookup(mysql) without MYSQL_HOST = %+v, true; want false", s)
	}
	args := []string{"--db-driver=pgsql", "--pgsql-host=db.local", "--pgsql-port=5432",
		"--pgsql-user=sbtest", "--pgsql-password=pw", "--pgsql-db=sbtest"}
	if got := s.Args(); !reflect.DeepEqual(got, args) {
		t.Errorf("Args() = %q, want %q", got, args)
	}
	v := s.Values(nil, "pgsql-db", "other")
	if v.String("pgsql-host") != "db.local" || v.String("pgsql-db") != "other" {
		t.Errorf("Values: host %q db %q", v.String("pgsql-host"), v.String("pgsql-db"))
	}
	if got := s.PgURL("x"); got != "postgres://sbtest:pw@db.local:5432/x?sslmode=disable" {
		t.Errorf("PgURL = %q", got)
	}
}

// TestImportDirection keeps testenv below the engine and the Lua layer:
// the drivers' tests import it.
func TestImportDirection(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/sysbench-go/sysbench-go/engine" || p == "github.com/sysbench-go/sysbench-go/luaapi" || p == "github.com/sysbench-go/sysbench-go/lua" ||
			strings.HasPrefix(p, "github.com/yuin/gopher-lua") {
			t.Errorf("testenv depends on %s", p)
		}
	}
}
