package luajit

import (
	"time"
)

// strftime is glibc's strftime in the C locale, which LuaJIT's os.date
// hands its format to: every conversion (%a ... %Z, %C %D %e %F %g %G %h
// %k %l %n %P %r %R %s %t %T %u %V %z %%), the E and O modifiers where
// glibc takes them (the same text in the C locale), glibc's flags (_ - 0
// ^ #) and widths with its padding rules, and a conversion it does not
// know copied as it is. utc is os.date's "!" (gmtime): %Z is then "GMT"
// and %z "+0000".
func strftime(b []byte, format string, t time.Time, utc bool) []byte {
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		start := i
		cv := convert{width: -1}
		i++
	flags:
		for ; i < len(format); i++ {
			switch format[i] {
			case '_', '-', '0':
				cv.pad = format[i]
			case '^':
				cv.upper = true
			case '#':
				cv.swap = true
			default:
				break flags
			}
		}
		for ; i < len(format) && format[i] >= '0' && format[i] <= '9'; i++ {
			cv.width = max(cv.width, 0)*10 + int(format[i]-'0')
		}
		var modifier byte
		if i < len(format) && (format[i] == 'E' || format[i] == 'O') {
			modifier = format[i]
			i++
		}
		if i >= len(format) {
			// A '%' sequence at the end: copied (glibc's extension).
			return cv.text(b, format[start:], 0)
		}
		c = format[i]
		ok := !(modifier == 'E' && indexByte("ABDFGHIMSUVWabdeghjklmw", c) >= 0 ||
			modifier == 'O' && indexByte("ADFXYacx", c) >= 0)
		if ok {
			b, ok = cv.do(b, c, t, utc)
		}
		if !ok {
			b = cv.text(b, format[start:i+1], 0)
		}
	}
	return b
}

// convert is one conversion's flags and width (-1 when not given).
type convert struct {
	pad         byte // '_', '-', '0' or 0
	width       int
	upper, swap bool
}

var (
	weekdays = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	months   = []string{"January", "February", "March", "April", "May", "June", "July",
		"August", "September", "October", "November", "December"}
)

// do appends conversion c of t; false for a conversion glibc does not know.
func (cv convert) do(b []byte, c byte, t time.Time, utc bool) ([]byte, bool) {
	yday := t.YearDay() - 1
	wday := int(t.Weekday())
	hour12 := t.Hour() % 12
	if hour12 == 0 {
		hour12 = 12
	}
	isoYear, isoWeek := t.ISOWeek()
	switch c {
	case 'a':
		return cv.text(b, weekdays[wday][:3], 'U'), true
	case 'A':
		return cv.text(b, weekdays[wday], 'U'), true
	case 'b', 'h':
		return cv.text(b, months[t.Month()-1][:3], 'U'), true
	case 'B':
		return cv.text(b, months[t.Month()-1], 'U'), true
	case 'c':
		return cv.sub(b, "%a %b %e %H:%M:%S %Y", t, utc), true
	case 'C':
		return cv.num(b, int64(floorDiv(t.Year(), 100)), 1), true
	case 'd':
		return cv.num(b, int64(t.Day()), 2), true
	case 'D', 'x':
		return cv.sub(b, "%m/%d/%y", t, utc), true
	case 'e':
		return cv.spaceNum(b, int64(t.Day()), 2), true
	case 'F':
		return cv.sub(b, "%Y-%m-%d", t, utc), true
	case 'g':
		return cv.num(b, int64(floorMod(isoYear, 100)), 2), true
	case 'G':
		return cv.num(b, int64(isoYear), 1), true
	case 'H':
		return cv.num(b, int64(t.Hour()), 2), true
	case 'I':
		return cv.num(b, int64(hour12), 2), true
	case 'j':
		return cv.num(b, int64(yday+1), 3), true
	case 'k':
		return cv.spaceNum(b, int64(t.Hour()), 2), true
	case 'l':
		return cv.spaceNum(b, int64(hour12), 2), true
	case 'm':
		return cv.num(b, int64(t.Month()), 2), true
	case 'M':
		return cv.num(b, int64(t.Minute()), 2), true
	case 'n':
		return cv.text(b, "\n", 0), true
	case 'p', 'P':
		ampm := "AM"
		if t.Hour() >= 12 {
			ampm = "PM"
		}
		if c == 'P' {
			return cv.text(b, ampm, 'l'), true
		}
		return cv.text(b, ampm, 'L'), true
	case 'r':
		return cv.sub(b, "%I:%M:%S %p", t, utc), true
	case 'R':
		return cv.sub(b, "%H:%M", t, utc), true
	case 's':
		// mktime of the broken-down time, read as local time (glibc's
		// %s, even after gmtime, whose tm_isdst is 0).
		secs := t.Unix()
		if utc {
			secs = mktime(t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), 0)
		}
		return cv.number(b, secs, 1), true
	case 'S':
		return cv.num(b, int64(t.Second()), 2), true
	case 't':
		return cv.text(b, "\t", 0), true
	case 'T', 'X':
		return cv.sub(b, "%H:%M:%S", t, utc), true
	case 'u':
		return cv.num(b, int64((wday+6)%7+1), 1), true
	case 'U':
		return cv.num(b, int64((yday+7-wday)/7), 2), true
	case 'V':
		return cv.num(b, int64(isoWeek), 2), true
	case 'w':
		return cv.num(b, int64(wday), 1), true
	case 'W':
		return cv.num(b, int64((yday+7-(wday+6)%7)/7), 2), true
	case 'y':
		return cv.num(b, int64(floorMod(t.Year(), 100)), 2), true
	case 'Y':
		return cv.num(b, int64(t.Year()), 1), true
	case 'z':
		_, off := t.Zone()
		if utc {
			off = 0
		}
		sign := "+"
		if off < 0 {
			sign, off = "-", -off
		}
		b = cv.text(b, sign, 0)
		off /= 60
		return cv.num(b, int64(off/60*100+off%60), 4), true
	case 'Z':
		name, _ := t.Zone()
		if utc {
			name = "GMT"
		}
		return cv.text(b, name, 'L'), true
	case '%':
		return cv.text(b, "%", 0), true
	}
	return b, false
}

// sub is a conversion made of others (%c, %D, %T...): the whole text
// padded to the width, upper case with '^'.
func (cv convert) sub(b []byte, format string, t time.Time, utc bool) []byte {
	inner := strftime(nil, format, t, utc)
	cv.swap = false
	return cv.text(b, string(inner), 0)
}

// text is glibc's cpy: s padded to the width with spaces (zeros with the
// 0 flag); '^' makes it upper case, '#' the case hashCase says ('U' for
// names, 'L' for %p and %Z).
func (cv convert) text(b []byte, s string, hashCase byte) []byte {
	switch {
	case hashCase == 'l', cv.swap && hashCase == 'L':
		s = mapASCII(s, 'A', 'Z', 32)
	case cv.upper, cv.swap && hashCase == 'U':
		s = mapASCII(s, 'a', 'z', -32)
	}
	padc := byte(' ')
	if cv.pad == '0' {
		padc = '0'
	}
	for n := cv.width - len(s); n > 0; n-- {
		b = append(b, padc)
	}
	return append(b, s...)
}

// num is glibc's DO_NUMBER: v in at least max(digits, width) places,
// padded with zeros (spaces with '_', none with '-'), then the rest of
// the width as text pads it.
func (cv convert) num(b []byte, v int64, digits int) []byte {
	return cv.number(b, v, max(digits, cv.width))
}

// spaceNum is DO_NUMBER_SPACEPAD (%e, %k, %l): spaces unless '0' or '-'.
func (cv convert) spaceNum(b []byte, v int64, digits int) []byte {
	if cv.pad != '0' && cv.pad != '-' {
		cv.pad = '_'
	}
	return cv.num(b, v, digits)
}

func (cv convert) number(b []byte, v int64, digits int) []byte {
	neg := v < 0
	u := uint64(v)
	if neg {
		u = -u
	}
	var buf [24]byte
	q := len(buf)
	for {
		q--
		buf[q] = byte('0' + u%10)
		if u /= 10; u == 0 {
			break
		}
	}
	if neg {
		q--
		buf[q] = '-'
	}
	if padding := digits - (len(buf) - q); cv.pad != '-' && padding > 0 {
		if cv.pad == '_' {
			for range padding {
				b = append(b, ' ')
			}
			cv.width = max(cv.width-padding, 0)
		} else {
			if neg {
				q++
				b = append(b, '-')
			}
			for range padding {
				b = append(b, '0')
			}
			cv.width = 0
		}
	}
	return cv.text(b, string(buf[q:]), 0)
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }
