package parse

import (
	"bytes"
	"os"
	"testing"

	gluaparse "github.com/yuin/gopher-lua/parse"
)

// The bundled script every OLTP test loads, parsed by ours and by
// gopher-lua's parser (go test -bench Parse -benchmem).
func benchmarkScript(b *testing.B) []byte {
	src, err := os.ReadFile("../../lua/oltp_common.lua")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	return src
}

func BenchmarkParse(b *testing.B) {
	src := benchmarkScript(b)
	for b.Loop() {
		if _, err := Parse(bytes.NewReader(src), "oltp_common.lua"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseGopherLua(b *testing.B) {
	src := benchmarkScript(b)
	for b.Loop() {
		if _, err := gluaparse.Parse(bytes.NewReader(src), "oltp_common.lua"); err != nil {
			b.Fatal(err)
		}
	}
}
