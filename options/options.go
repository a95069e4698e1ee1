// Package options holds sysbench-style option declarations and parsed values.
//
// It is a leaf package: the engine, the Lua layer, the drivers and the
// built-in tests all declare their options with it, and main.go parses the
// command line against the union of those declarations.
package options

import (
	"fmt"
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
	// Words lets a boolean option also take other words, e.g.
	// --mysql-ssl=REQUIRED; the driver validates them. Placeholder then
	// says which, in the help ("[=on|off|MODE]").
	Words       bool
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

// Int returns the integer value of an option, with sysbench's error text
// for a malformed one.
func (v *Values) Int(name string) (int64, error) {
	s, ok := v.Raw(name)
	if !ok || s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("Invalid value for the '%s' option: '%s'", name, s)
	}
	return n, nil
}

// Float returns the floating point value of an option.
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

// Size returns a size value with an optional binary suffix (K, M, G, T).
func (v *Values) Size(name string) (uint64, error) {
	s, ok := v.Raw(name)
	if !ok || s == "" {
		return 0, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return 0, fmt.Errorf("Invalid value for the '%s' option: '%s'", name, s)
	}
	return n, nil
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

// ParseBool accepts sysbench's boolean spellings plus yes/no.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean value %q", s)
}

// ParseSize parses "16384", "16K", "2G" (binary multiples).
func ParseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty size")
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid size %q", s)
	}
	n, err := strconv.ParseUint(s[:i], 10, 64)
	if err != nil {
		return 0, err
	}
	suffix := strings.ToUpper(s[i:])
	mult := map[string]uint64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
		"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40, "B": 1}
	m, ok := mult[suffix]
	if !ok {
		return 0, fmt.Errorf("invalid size suffix %q", s)
	}
	return n * m, nil
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
