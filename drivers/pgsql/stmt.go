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
		var f int16 // text
		switch oid {
		case oidInt2, oidInt4, oidInt8, oidFloat4, oidFloat8:
			f = 1 // binary: no formatting or parsing of numbers
		}
		s.formats = append(s.formats, f)
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
		dialect := drivers.DialectStandard
		if !c.stdStrings {
			// Backslashes escape in '...' literals then, as in MySQL.
			dialect = drivers.DialectMySQL
		}
		var err error
		c.sqlBuf, err = drivers.Interpolate(c.sqlBuf[:0], s.query, args, dialect)
		if err != nil {
			return nil, &drivers.Error{Kind: drivers.Fatal, Msg: err.Error(), Query: s.query, Op: "PQexec()"}
		}
		return c.exec(ctx, string(c.sqlBuf), "PQexec")
	}
	if s.sd == nil || s.gen != c.gen || !s.sameTypes(args) {
		if err := s.prepare(ctx, args); err != nil {
			return nil, err
		}
	}
	s.encode(args)

	if err := c.begin(ctx); err != nil {
		return nil, c.fail(ctx, err, "PQexecPrepared", "")
	}
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
// as declared, everything else as text.
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
		switch s.oids[i] {
		case oidInt2:
			buf = binary.BigEndian.AppendUint16(buf, uint16(a.Int))
		case oidInt4:
			buf = binary.BigEndian.AppendUint32(buf, uint32(a.Int))
		case oidInt8:
			buf = binary.BigEndian.AppendUint64(buf, uint64(a.Int))
		case oidFloat4:
			buf = binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(a.Float)))
		case oidFloat8:
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(a.Float))
		default:
			switch {
			case a.Type.IsInteger():
				buf = strconv.AppendInt(buf, a.Int, 10)
			case a.Type.IsFloat():
				buf = strconv.AppendFloat(buf, a.Float, 'g', -1, 64)
			default:
				buf = append(buf, a.Str...)
			}
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

// Close deallocates the statement on the server.
func (s *stmt) Close() error {
	c := s.c
	if s.sd != nil && s.gen == c.gen && c.pg != nil && !c.pg.IsClosed() {
		_ = c.pg.Deallocate(context.Background(), s.sd.Name)
	}
	s.sd = nil
	return nil
}
