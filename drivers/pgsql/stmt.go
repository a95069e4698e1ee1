package pgsql

import (
	"context"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// PostgreSQL type OIDs used to declare parameters.
const (
	oidUnknown = 0
	oidInt2    = 21
	oidInt4    = 23
	oidInt8    = 20
	oidFloat4  = 700
	oidFloat8  = 701
	oidVarchar = 1043
	oidTS      = 1114
)

// paramOID maps a sysbench type to the parameter type declared at prepare
// time, as sysbench's table does, except that CHAR is left for the server to
// infer: declaring it as PostgreSQL's one-byte "char" (OID 18, sysbench's
// table) would cut values to one character, which sysbench does not do in
// practice.
func paramOID(t drivers.Type) uint32 {
	switch t {
	case drivers.TypeSmallInt:
		return oidInt2
	case drivers.TypeInt:
		return oidInt4
	case drivers.TypeBigInt:
		return oidInt8
	case drivers.TypeFloat:
		return oidFloat4
	case drivers.TypeDouble:
		return oidFloat8
	case drivers.TypeTimestamp:
		return oidTS
	case drivers.TypeVarChar:
		return oidVarchar
	}
	return oidUnknown
}

// stmt is a prepared statement on one connection.
type stmt struct {
	c        *conn
	query    string // as given, with '?'
	pgQuery  string // with $1..$n
	marks    []int  // byte offsets of the placeholders in query
	nparams  int
	emulated bool // --db-ps-mode=disable

	sd    *pgconn.StatementDescription
	gen   int // connection generation sd belongs to
	types []drivers.Type
	oids  []uint32

	// Reused for every execution: encoded parameters and their formats.
	buf     []byte
	bounds  []int32 // end offset in buf per parameter, -1 for NULL
	values  [][]byte
	formats []int16
}

var _ drivers.Stmt = (*stmt)(nil)

// prepare sends Parse/Describe for the statement with parameter types taken
// from args.
func (s *stmt) prepare(ctx context.Context, args []drivers.Value) error {
	c := s.c
	if err := c.begin(ctx); err != nil {
		return c.fail(ctx, err, "PQprepare", s.pgQuery)
	}
	if s.sd != nil && s.gen == c.gen {
		// Re-preparing with other types: drop the old one first.
		_ = c.pg.Deallocate(context.Background(), s.sd.Name)
	}
	s.sd = nil
	s.types = s.types[:0]
	s.oids = s.oids[:0]
	s.formats = s.formats[:0]
	for _, a := range args {
		oid := paramOID(a.Type)
		s.types = append(s.types, a.Type)
		s.oids = append(s.oids, oid)
		s.formats = append(s.formats, 0) // set per value by encode
	}
	sd, err := c.pg.Prepare(context.Background(), c.stmtName(), s.pgQuery, s.oids)
	c.end()
	if err != nil {
		return c.fail(ctx, err, "PQprepare", s.pgQuery)
	}
	s.sd, s.gen = sd, c.gen
	if cap(s.values) < s.nparams {
		s.values = make([][]byte, s.nparams)
		s.bounds = make([]int32, s.nparams)
	}
	s.values = s.values[:s.nparams]
	s.bounds = s.bounds[:s.nparams]
	return nil
}

// Execute runs the statement with args and buffers its result.
func (s *stmt) Execute(ctx context.Context, args []drivers.Value) (drivers.Result, error) {
	c := s.c
	if len(args) != s.nparams {
		c.d.log.Alertf("wrong number of parameters in prepared statement")
		return nil, &drivers.Error{Kind: drivers.Fatal, Msg: "wrong number of parameters in prepared statement",
			Query: s.query, Op: "PQexecPrepared()"}
	}
	if s.emulated {
		c.sqlBuf = s.substitute(c.sqlBuf[:0], args)
		return c.exec(ctx, string(c.sqlBuf), "PQexec")
	}
	if err := c.relink(ctx); err != nil {
		return nil, err
	}
	for {
		if s.sd == nil || s.gen != c.gen || !s.sameTypes(args) {
			if err := s.prepare(ctx, args); err != nil {
				return nil, err
			}
		}
		if err := c.begin(ctx); err != nil {
			return nil, c.fail(ctx, err, "PQexecPrepared", "")
		}
		if s.gen == c.gen {
			break
		}
		// begin connected again: the call before (the prepare) ended as
		// its --query-timeout or its context did, which the next call
		// settles on a new connection, where the statement is not
		// prepared yet. Beside a loaded suite a run died so, "prepared
		// statement "sbstmt2" does not exist".
		c.release()
	}
	s.encode(args)
	rr := c.pg.ExecStatement(context.Background(), s.sd, s.values, s.formats, nil)
	res := c.firstResult()
	for rr.NextRow() {
		res.addRow(rr.Values())
	}
	tag, err := rr.Close()
	c.end()
	if err != nil {
		return nil, c.fail(ctx, err, "PQexecPrepared", "")
	}
	res.finish(s.sd.Fields != nil, len(s.sd.Fields), tag)
	c.nres, c.cur = 1, 1
	return res, nil
}

func (s *stmt) sameTypes(args []drivers.Value) bool {
	for i := range args {
		if args[i].Type != s.types[i] {
			return false
		}
	}
	return true
}

// encode writes the parameters into s.buf: integers and floats in binary
// as declared, everything else as text. A number the declared type cannot
// hold (40000 for a smallint, 1e300 for a real) goes as its text, which
// the server refuses with its out-of-range error, rather than cut to the
// type's width.
func (s *stmt) encode(args []drivers.Value) {
	buf := s.buf[:0]
	if buf == nil {
		// An empty string must stay non-nil, or it would be sent as NULL.
		buf = make([]byte, 0, 256)
	}
	for i := range args {
		a := &args[i]
		if a.Null {
			s.bounds[i] = -1
			continue
		}
		oid := s.oids[i]
		s.formats[i] = 0 // text
		if isBinary(oid) && fits(oid, a) {
			s.formats[i] = 1 // binary: no formatting or parsing of numbers
		}
		switch {
		case s.formats[i] == 0:
			buf = appendParamText(buf, oid, a)
		case oid == oidInt2:
			buf = binary.BigEndian.AppendUint16(buf, uint16(a.Int))
		case oid == oidInt4:
			buf = binary.BigEndian.AppendUint32(buf, uint32(a.Int))
		case oid == oidInt8:
			buf = binary.BigEndian.AppendUint64(buf, uint64(a.Int))
		case oid == oidFloat4:
			buf = binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(a.Float)))
		case oid == oidFloat8:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(a.Float))
		}
		s.bounds[i] = int32(len(buf))
	}
	// Slice only now: appending may have moved buf.
	start := int32(0)
	for i, end := range s.bounds {
		if end < 0 {
			s.values[i] = nil
			continue
		}
		s.values[i] = buf[start:end:end]
		start = end
	}
	s.buf = buf
}

// isBinary: parameters declared with oid are sent in binary.
func isBinary(oid uint32) bool {
	switch oid {
	case oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8:
		return true
	}
	return false
}

// fits reports whether the declared type oid holds a's value.
func fits(oid uint32, a *drivers.Value) bool {
	switch oid {
	case oidInt2:
		return a.Int >= math.MinInt16 && a.Int <= math.MaxInt16
	case oidInt4:
		return a.Int >= math.MinInt32 && a.Int <= math.MaxInt32
	case oidFloat4:
		f := float32(a.Float)
		return !(math.IsInf(float64(f), 0) && !math.IsInf(a.Float, 0)) && !(f == 0 && a.Float != 0)
	}
	return true
}

// appendParamText appends the text of a parameter declared as oid: the
// server's input function for that type reads it as the value (or, for a
// number out of the type's range, refuses it).
func appendParamText(buf []byte, oid uint32, a *drivers.Value) []byte {
	switch {
	case a.Type.IsInteger():
		return strconv.AppendInt(buf, a.Int, 10)
	case a.Type.IsFloat():
		f, bits := a.Float, 64
		if oid == oidFloat4 && fits(oid, a) {
			f, bits = float64(float32(f)), 32
		}
		switch {
		case math.IsNaN(f):
			return append(buf, "NaN"...)
		case math.IsInf(f, 1):
			return append(buf, "Infinity"...)
		case math.IsInf(f, -1):
			return append(buf, "-Infinity"...)
		}
		return strconv.AppendFloat(buf, f, 'g', -1, bits)
	}
	return append(buf, a.Str...)
}

// typeName is the SQL name of a declared parameter type, "" for none.
func typeName(oid uint32) string {
	switch oid {
	case oidInt2:
		return "int2"
	case oidInt4:
		return "int4"
	case oidInt8:
		return "int8"
	case oidFloat4:
		return "float4"
	case oidFloat8:
		return "float8"
	case oidVarchar:
		return "varchar"
	case oidTS:
		return "timestamp"
	}
	return ""
}

// substitute appends the statement's text to dst with each placeholder
// replaced by a literal of the type the prepared statement would declare
// for its parameter ('5'::int4, '0.1'::float8, 'x'::varchar; an untyped
// 'x' where it declares none), whose value is what the prepared
// statement would have bound: the server then reads the statement as the
// prepared one, its types, conversions and errors alike. Strings holding
// a backslash are written E'...', which reads the same whatever
// standard_conforming_strings says. A number out of the declared type's
// range is converted from text at execution ('40000'::text::int2), where
// the prepared statement refuses it.
func (s *stmt) substitute(dst []byte, args []drivers.Value) []byte {
	prev := 0
	for i, m := range s.marks {
		dst = append(dst, s.query[prev:m]...)
		prev = m + 1
		a := &args[i]
		oid := paramOID(a.Type)
		if a.Null {
			dst = append(dst, "NULL"...)
		} else {
			start := len(dst)
			dst = appendParamText(dst, oid, a)
			dst = quote(dst, start)
		}
		if name := typeName(oid); name != "" {
			if !a.Null && !fits(oid, a) {
				// Out of the type's range: read at execution, as the
				// prepared statement reads its text parameter, so that a
				// type error of the statement is still found first.
				dst = append(dst, "::text"...)
			}
			dst = append(dst, "::"...)
			dst = append(dst, name...)
		}
	}
	return append(dst, s.query[prev:]...)
}

// quote makes dst[start:] a quoted string literal in place.
func quote(dst []byte, start int) []byte {
	text := dst[start:]
	extra, esc := 2, false
	for _, c := range text {
		switch c {
		case '\\':
			extra++
			esc = true
		case '\'':
			extra++
		}
	}
	if esc {
		extra++
	}
	n := len(dst)
	dst = append(dst, make([]byte, extra)...)
	// Fill from the end, so that the text is read before it is overwritten.
	w := len(dst) - 1
	dst[w] = '\''
	w--
	for r := n - 1; r >= start; r-- {
		c := dst[r]
		dst[w] = c
		w--
		if c == '\'' || c == '\\' {
			dst[w] = c
			w--
		}
	}
	dst[w] = '\''
	if esc {
		w--
		dst[w] = 'E'
	}
	return dst
}

// Close deallocates the statement on the server.
func (s *stmt) Close() error {
	c := s.c
	if s.sd != nil && s.gen == c.gen && c.pg != nil && !c.pg.IsClosed() {
		_ = c.pg.Deallocate(context.Background(), s.sd.Name)
	}
	s.sd = nil
	return nil
}
