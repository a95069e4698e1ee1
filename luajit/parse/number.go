package parse

import (
	"strconv"

	"github.com/sysbench-go/sysbench-go/luajit/number"
)

const numImaginary = numUint64 + 1

type numberValue struct {
	kind  int     // numFloat, numInt64, numUint64 or numImaginary
	value float64 // numFloat
	bits  uint64  // numInt64 (two's complement) and numUint64
	odd   bool    // gopher-lua's lexer would read the text otherwise
}

// scanNumber converts a numeric literal the way LuaJIT's lexer does
// (number.ScanLiteral) and notes whether gopher-lua's own lexer would read
// the text differently.
func scanNumber(s string) (n numberValue, ok bool) {
	lit, ok := number.ScanLiteral(s)
	if !ok {
		return n, false
	}
	n.kind, n.value, n.bits = int(lit.Kind), lit.Value, lit.Bits
	n.odd = lit.Base == 2 || !lit.Integer && (lit.Kind != number.Float || lit.Base == 16) ||
		lit.Base == 10 && s[0] == '0' && len(s) > 1 && is(int(s[1]), chDigit) ||
		lit.Base == 16 && (len(lit.Digits) > 16 ||
			len(lit.Digits) == 16 && hexValue(int(lit.Digits[0])) >= 8) ||
		lit.OutOfRange // gopher-lua makes those NaN
	return n, true
}

// formatNumber writes v so that gopher-lua's compiler (strconv.ParseInt,
// then strconv.ParseFloat) reads back exactly v.
func formatNumber(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}
