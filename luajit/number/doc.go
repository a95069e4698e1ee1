// Package number owns numbers as text and text as numbers the way LuaJIT
// 2.1 has them: tostring's %.14g with LuaJIT's rounding (ties away from
// zero, "inf", "-inf", "nan", "-0"), C's %e, %f, %g and %a conversions
// for string.format, and the string-to-number rules of tonumber,
// arithmetic on strings and library arguments, which are those of LuaJIT's
// lexer for literals.
package number
