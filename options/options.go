// Package options holds sysbench-style option declarations and parsed values.
//
// It is a leaf package: the engine, the Lua layer, the drivers and the
// built-in tests all declare their options with it, and main.go parses the
// command line against the union of those declarations.
package options

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of an option's value, as sysbench's help prints it.
type Kind int

// Option kinds, in sysbench's order.
const (
	Bool Kind = iota
	Int
	Size
	Float
	String
	List
	File
)

// Placeholder returns the "=N" style suffix the help output shows for a kind.
func (k Kind) Placeholder() string {
	switch k {
	case Bool:
		return "[=on|off]"
	case Int:
		return "=N"
	case Size:
		return "=SIZE"
	case Float:
		return "=N"
	case String:
		return "=STRING"
	case List:
		return "=[LIST,...]"
	case File:
		return "=FILENAME"
	}
	return "=UNKNOWN"
}

// Option declares one command-line option.
type Option struct {
	Name    string
	Desc    string
	Kind    Kind
	Default string // "" means no default; shown in help as [value] unless NoDefault
	// NoDefault hides the "[default]" suffix in help (sysbench prints none
	// for options declared without a default value).
	NoDefault bool
	// Words lets a boolean option also take the words of Choices (any
	// case), e.g. --mysql-ssl=REQUIRED; other words are refused as a
	// boolean's. Placeholder then says which, in the help
	// ("[=on|off|MODE]").
	Words       bool
	Choices     []string
	Placeholder string
	// Extension marks an option sysbench 1.0.20 does not have: --help
	// lists it among the extensions of its group, not in the reference's
	// block (which stays byte for byte the reference's).
	Extension bool
	// Ref is the reference's declaration of an option we extended (a list
	// where it takes one value, more choices): the reference's block shows
	// it, the extensions block shows ours.
	Ref *Option
}

// Values is the parsed set of option values, keyed by canonical name.
// A value is kept as the raw string the user gave (or the default) and
// converted on read, as sysbench does.
type Values struct {
	raw map[string]string
	set map[string]bool // explicitly given on the command line or config file
}

// NewValues returns an empty value set.
func NewValues() *Values {
	return &Values{raw: map[string]string{}, set: map[string]bool{}}
}

// Canonical maps a name to its canonical key: script options accept '-'
// and '_' interchangeably, so both are folded to '_'.
func Canonical(name string) string {
	return strings.ReplaceAll(name, "-", "_")
}

// SetDefault records a default unless a value is already present.
func (v *Values) SetDefault(name, value string) {
	k := Canonical(name)
	if _, ok := v.raw[k]; !ok {
		v.raw[k] = value
	}
}

// Set records a value given by the user.
func (v *Values) Set(name, value string) {
	k := Canonical(name)
	v.raw[k] = value
	v.set[k] = true
}

// Has reports whether the option has any value (default or given).
func (v *Values) Has(name string) bool {
	_, ok := v.raw[Canonical(name)]
	return ok
}

// IsSet reports whether the user gave the option explicitly.
func (v *Values) IsSet(name string) bool { return v.set[Canonical(name)] }

// Raw returns the raw string value and whether it exists.
func (v *Values) Raw(name string) (string, bool) {
	s, ok := v.raw[Canonical(name)]
	return s, ok
}

// Names returns all known names, sorted.
func (v *Values) Names() []string {
	out := make([]string, 0, len(v.raw))
	for k := range v.raw {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// String returns the string value ("" when absent).
func (v *Values) String(name string) string {
	s, _ := v.Raw(name)
	return s
}

// Bool returns the boolean value; absent or unparsable is false.
func (v *Values) Bool(name string) bool {
	s, ok := v.Raw(name)
	if !ok {
		return false
	}
	b, err := ParseBool(s)
	return err == nil && b
}

// ValueError is a value sysbench 1.0.20's option parser refuses as it
// converts it: the reference prints its message on standard error, as it
// is, and exits with status 1.
type ValueError struct{ Name, Value string }

func (e *ValueError) Error() string {
	return fmt.Sprintf("Invalid value for the '%s' option: '%s'", Canonical(e.Name), e.Value)
}

// Int returns the integer value of an option as the reference reads it
// (C's strtol over the whole value, within a C int): an empty value is 0;
// blanks before the number and a sign are allowed; anything after it, or
// a number out of range, is a *ValueError.
func (v *Values) Int(name string) (int64, error) {
	s, ok := v.Raw(name)
	if !ok || s == "" {
		return 0, nil
	}
	n, err := ParseInt(s)
	if err != nil {
		return 0, &ValueError{Name: name, Value: s}
	}
	return n, nil
}

// ParseInt reads s as the reference's integer options: strtol in base 10
// over the whole of s, within a C int.
func ParseInt(s string) (int64, error) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n > math.MaxInt32 || n < math.MinInt32 {
		return 0, fmt.Errorf("invalid integer %q", s)
	}
	return n, nil
}

// Float returns the floating point value of one of our options, strictly:
// a value that is not a number is an error.
func (v *Values) Float(name string) (float64, error) {
	s, ok := v.Raw(name)
	if !ok || s == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("Invalid value for the '%s' option: '%s'", name, s)
	}
	return f, nil
}

// Double returns the value of one of the reference's floating point
// options as it reads them (C's strtod): the longest number at the start
// of the value, 0 when there is none. It never fails.
func (v *Values) Double(name string) float64 {
	s, _ := v.Raw(name)
	return ParseDouble(s)
}

// ParseDouble reads the longest prefix of s that strtod reads as a
// decimal number (blanks before it, a sign, digits, a fraction, an
// exponent; "inf" and "nan"), 0 when there is none.
func ParseDouble(s string) float64 {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	for end := len(t); end > 0; end-- {
		p := t[:end]
		if strings.ContainsAny(p, "xX_") {
			continue // hex floats and Go's digit separators are not strtod's decimal numbers
		}
		if f, err := strconv.ParseFloat(p, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			return f
		}
	}
	return 0
}

// Size returns a size value as the reference reads it: the digits at the
// start, then a K, M, G or T multiplier (either case); any other letter
// after the digits gives 0, and so does a value without digits at its
// start. It never fails.
func (v *Values) Size(name string) uint64 {
	s, _ := v.Raw(name)
	return ParseSize(s)
}

// ParseSize reads s as the reference's size options: "16384", "16K",
// "2G" (binary multiples; what follows the multiplier is ignored).
// Digits that overflow wrap, as the reference's unsigned arithmetic.
func ParseSize(s string) uint64 {
	var n uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + uint64(s[i]-'0')
	}
	if i == 0 || i == len(s) {
		return n
	}
	shift := strings.IndexByte("KMGT", upper(s[i]))
	if shift < 0 {
		return 0
	}
	return n << (10 * (shift + 1))
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// List returns a comma-separated list value; empty items are dropped.
func (v *Values) List(name string) []string {
	s, ok := v.Raw(name)
	if !ok {
		return nil
	}
	return SplitList(s)
}

// SplitList splits a comma-separated list, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ParseBool reads a boolean value as the reference does: on, true or 1;
// off, false or 0 (exactly so spelt). Any other word, and the empty value,
// is an error (the reference's "invalid option").
func ParseBool(s string) (bool, error) {
	switch s {
	case "on", "true", "1":
		return true, nil
	case "off", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean value %q", s)
}

// FormatHelp writes option help lines in sysbench's layout: names padded to
// the longest "--name=PLACEHOLDER" in the group, then the description and
// the default in brackets.
func FormatHelp(opts []Option) string {
	return formatHelp(opts)
}

// FormatReferenceHelp formats a group as sysbench 1.0.20's --help does:
// without our extensions, with the reference's declaration of the options
// we extended.
func FormatReferenceHelp(opts []Option) string {
	var ref []Option
	for _, o := range opts {
		switch {
		case o.Extension:
		case o.Ref != nil:
			ref = append(ref, *o.Ref)
		default:
			ref = append(ref, o)
		}
	}
	return formatHelp(ref)
}

// FormatExtensionHelp formats what a group has beyond sysbench 1.0.20: the
// options it lacks and the options we extended, as we declare them. It is
// empty when there are none.
func FormatExtensionHelp(opts []Option) string {
	var ext []Option
	for _, o := range opts {
		if o.Extension || o.Ref != nil {
			ext = append(ext, o)
		}
	}
	return formatHelp(ext)
}

// placeholder is what the help shows after the option's name.
func (o Option) placeholder() string {
	if o.Placeholder != "" {
		return o.Placeholder
	}
	return o.Kind.Placeholder()
}

func formatHelp(opts []Option) string {
	maxlen := 0
	for _, o := range opts {
		if l := len(o.Name) + len(o.placeholder()); l > maxlen {
			maxlen = l
		}
	}
	var b strings.Builder
	for _, o := range opts {
		fmt.Fprintf(&b, "  --%s%-*s%s", o.Name, maxlen-len(o.Name)+1, o.placeholder(), o.Desc)
		if !o.NoDefault {
			fmt.Fprintf(&b, " [%s]", o.Default)
		}
		b.WriteString("\n")
	}
	return b.String()
}
