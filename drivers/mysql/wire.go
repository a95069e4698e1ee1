package mysql

import (
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"reflect"
	"strconv"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/sysbench-go/sysbench-go/drivers"
)

// wire executes server-side prepared statements by speaking
// COM_STMT_EXECUTE on the connection's socket itself, between
// go-sql-driver's commands, and decodes the binary rows straight into the
// connection's result buffer. go-sql-driver still connects, authenticates,
// prepares, closes statements and runs text queries; the hot path of a
// prepared statement no longer goes through database/sql/driver values,
// which cost a rows object, a result-set header, a boxed value per column
// and per argument, and the driver's packet layers on every query.
//
// It is used only where nothing lies between the packets and the socket:
// no TLS, no compression. The connection details that go-sql-driver
// negotiated (capabilities, packet limit) and each statement's id and
// columns are read from its structures by reflection once per connect and
// per prepare; if they are not where this code expects them (another
// go-sql-driver version), wire is not used and everything goes through
// go-sql-driver as before, and the tests in wire_test.go fail.
//
// The socket carries one command at a time and every reply is read to
// its end, by go-sql-driver or by wire, so neither ever finds the other's
// bytes in its buffer.
type wire struct {
	nc           net.Conn
	deprecateEOF bool // CLIENT_DEPRECATE_EOF: OK packets instead of EOF
	cacheMeta    bool // MariaDB's MARIADB_CLIENT_CACHE_METADATA
	maxPacket    int  // go-sql-driver's limit on a command's payload

	in     []byte // read buffer; in[r:w] is unread
	r, w   int
	seq    byte   // sequence number of the next packet
	joined []byte // a payload of 16 MiB or more, put together
	out    []byte // the command being sent
}

// Protocol constants (MySQL client/server protocol).
const (
	comStmtExecute = 0x17

	maxPayload = 1<<24 - 1 // a longer payload continues in the next packet

	capDeprecateEOF  = 1 << 24
	extCacheMetadata = 1 << 4 // MariaDB extended capability

	statusMoreResults = 1 << 3
	flagUnsigned      = 1 << 5

	typeDecimal    = 0x00
	typeTiny       = 0x01
	typeShort      = 0x02
	typeLong       = 0x03
	typeFloat      = 0x04
	typeDouble     = 0x05
	typeNull       = 0x06
	typeTimestamp  = 0x07
	typeLongLong   = 0x08
	typeInt24      = 0x09
	typeDate       = 0x0a
	typeTime       = 0x0b
	typeDateTime   = 0x0c
	typeYear       = 0x0d
	typeNewDate    = 0x0e
	typeVarChar    = 0x0f
	typeBit        = 0x10
	typeVector     = 0xf2
	typeJSON       = 0xf5
	typeNewDecimal = 0xf6
	typeGeometry   = 0xff
	typeString     = 0xfe

	readMin = 16 << 10 // smallest read: sockio.Conn reads this much straight into our buffer
)

// errMalformed is a reply that does not parse: the connection is out of
// step with the server and is treated as lost.
var errMalformed = fmt.Errorf("malformed packet: %w", gomysql.ErrInvalidConn)

// column is what decoding a binary row needs of a column definition.
type column struct {
	typ      byte
	unsigned bool
	decimals byte
}

// newWire returns a wire for dc, whose socket is nc, or nil when dc's
// packets do not travel on nc as they are (TLS, compression) or its
// layout is not the one known here.
func newWire(dc driver.Conn, nc net.Conn, old *wire) *wire {
	v := reflect.ValueOf(dc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	caps, ext, maxp := v.FieldByName("capabilities"), v.FieldByName("extCapabilities"), v.FieldByName("maxAllowedPacket")
	netc, raw, comp := v.FieldByName("netConn"), v.FieldByName("rawConn"), v.FieldByName("compIO")
	if !caps.CanUint() || !ext.CanUint() || !maxp.CanInt() ||
		netc.Kind() != reflect.Interface || raw.Kind() != reflect.Interface || comp.Kind() != reflect.Pointer {
		return nil
	}
	// rawConn is the socket under TLS, and the socket itself otherwise.
	if nc == nil || !sameConn(netc, nc) || !raw.IsNil() && !sameConn(raw, nc) || !comp.IsNil() {
		return nil
	}
	w := old
	if w == nil {
		w = &wire{in: make([]byte, 4*readMin)}
	}
	w.nc, w.r, w.w = nc, 0, 0
	w.deprecateEOF = caps.Uint()&capDeprecateEOF != 0
	w.cacheMeta = ext.Uint()&extCacheMetadata != 0
	w.maxPacket = int(maxp.Int())
	return w
}

// sameConn reports whether the interface field f holds nc.
func sameConn(f reflect.Value, nc net.Conn) bool {
	nv := reflect.ValueOf(nc)
	return !f.IsNil() && nv.Kind() == reflect.Pointer && f.Elem().Kind() == reflect.Pointer &&
		f.Elem().Pointer() == nv.Pointer()
}

// stmtInfo reads the server's statement id and, when go-sql-driver has
// them (MariaDB's metadata cache), the result columns from a statement it
// prepared.
func stmtInfo(ds driver.Stmt, cols []column) (id uint32, _ []column, ok bool) {
	v := reflect.ValueOf(ds)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return 0, cols, false
	}
	v = v.Elem()
	idv, cv := v.FieldByName("id"), v.FieldByName("columns")
	if !idv.CanUint() || cv.Kind() != reflect.Slice {
		return 0, cols, false
	}
	cols = cols[:0]
	for i := range cv.Len() {
		e := cv.Index(i)
		t, f, d := e.FieldByName("fieldType"), e.FieldByName("flags"), e.FieldByName("decimals")
		if !t.CanUint() || !f.CanUint() || !d.CanUint() {
			return 0, cols, false
		}
		cols = append(cols, column{typ: byte(t.Uint()), unsigned: f.Uint()&flagUnsigned != 0, decimals: byte(d.Uint())})
	}
	return uint32(idv.Uint()), cols, true
}

// execute runs s with args and reads the reply into res. Errors are
// *gomysql.MySQLError from the server, or mean the connection is lost (see
// lostConn), as go-sql-driver reports them.
func (w *wire) execute(s *stmt, args []drivers.Value, res *result) error {
	p := append(w.out[:0], 0, 0, 0, 0, comStmtExecute)
	p = binary.LittleEndian.AppendUint32(p, s.id)
	p = append(p, 0, 1, 0, 0, 0) // no cursor, one iteration
	if len(args) > 0 {
		nulls := len(p)
		for range (len(args) + 7) / 8 {
			p = append(p, 0)
		}
		p = append(p, 1) // parameter types follow
		for i := range args {
			a := &args[i]
			switch {
			case a.Null:
				p[nulls+i/8] |= 1 << (i % 8)
				p = append(p, typeNull, 0)
			case a.Type.IsInteger():
				p = append(p, typeLongLong, 0)
			case a.Type.IsFloat():
				p = append(p, typeDouble, 0)
			default:
				p = append(p, typeString, 0)
			}
		}
		for i := range args {
			a := &args[i]
			switch {
			case a.Null:
			case a.Type.IsInteger():
				p = binary.LittleEndian.AppendUint64(p, uint64(a.Int))
			case a.Type.IsFloat():
				p = binary.LittleEndian.AppendUint64(p, math.Float64bits(a.Float))
			default:
				p = appendLenEnc(p, uint64(len(a.Str)))
				p = append(p, a.Str...)
			}
		}
	}
	w.out = p
	err := w.send(p)
	if err == nil {
		err = w.reply(s, res)
	}
	if err != nil && (errors.Is(err, gomysql.ErrPktSync) || errors.Is(err, gomysql.ErrPktSyncMul)) {
		// Out of step with the server: the connection cannot be used
		// again, and the next call finds it gone (go-sql-driver does the
		// same).
		w.nc.Close()
	}
	w.trim()
	return err
}

// trim lets go of buffers that a payload of over 1 MiB left large.
func (w *wire) trim() {
	const keep = 1 << 20
	if cap(w.out) > keep {
		w.out = nil
	}
	if cap(w.joined) > keep {
		w.joined = nil
	}
	if len(w.in) > keep && w.r == w.w {
		w.in, w.r, w.w = make([]byte, 4*readMin), 0, 0
	}
}

// send writes the payload p[4:] as one command, in as many packets as it
// takes.
func (w *wire) send(p []byte) error {
	n := len(p) - 4
	if n > w.maxPacket {
		return gomysql.ErrPktTooLarge
	}
	w.seq = 0
	if n < maxPayload {
		p[0], p[1], p[2], p[3] = byte(n), byte(n>>8), byte(n>>16), 0
		w.seq = 1
		if _, err := w.nc.Write(p); err != nil {
			return sendError(err, true)
		}
		return nil
	}
	// Split: a header before every 16 MiB - 1 bytes, and an empty packet
	// after a payload that is an exact multiple.
	data := p[4:]
	for first := true; ; first = false {
		size := min(len(data), maxPayload)
		h := [4]byte{byte(size), byte(size >> 8), byte(size >> 16), w.seq}
		w.seq++
		if _, err := w.nc.Write(h[:]); err != nil {
			return sendError(err, first)
		}
		if _, err := w.nc.Write(data[:size]); err != nil {
			return sendError(err, false)
		}
		data = data[size:]
		if size < maxPayload {
			return nil
		}
	}
}

// sendError reports a failed write as go-sql-driver does: "server gone"
// when nothing of the command left, otherwise a lost connection.
func sendError(err error, first bool) error {
	if first {
		return driver.ErrBadConn
	}
	return err
}

// packet returns the next packet's payload, valid until the next call.
func (w *wire) packet() ([]byte, error) {
	data, err := w.frame(gomysql.ErrPktSync)
	if err != nil || len(data) < maxPayload {
		return data, err
	}
	// A payload of 16 MiB or more: gather its packets.
	w.joined = append(w.joined[:0], data...)
	for {
		data, err := w.frame(gomysql.ErrPktSyncMul)
		if err != nil {
			return nil, err
		}
		w.joined = append(w.joined, data...)
		if len(data) < maxPayload {
			return w.joined, nil
		}
	}
}

// frame reads one packet and returns its payload; outOfStep is the error
// for a packet whose sequence number is not the next one.
func (w *wire) frame(outOfStep error) ([]byte, error) {
	if err := w.fill(4); err != nil {
		return nil, err
	}
	h := w.in[w.r : w.r+4]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if h[3] != w.seq {
		return nil, outOfStep
	}
	w.seq++
	if err := w.fill(4 + n); err != nil {
		return nil, err
	}
	data := w.in[w.r+4 : w.r+4+n]
	w.r += 4 + n
	return data, nil
}

// fill reads until in[r:] holds at least n bytes.
func (w *wire) fill(n int) error {
	if w.w-w.r >= n {
		return nil
	}
	if w.r == w.w {
		w.r, w.w = 0, 0
	}
	if len(w.in)-w.r < n || len(w.in)-w.w < readMin {
		if need := n + readMin; len(w.in) < need {
			in := make([]byte, max(need, 2*len(w.in)))
			w.w = copy(in, w.in[w.r:w.w])
			w.in = in
		} else {
			w.w = copy(w.in, w.in[w.r:w.w])
		}
		w.r = 0
	}
	for w.w-w.r < n {
		m, err := w.nc.Read(w.in[w.w:])
		w.w += m
		if err != nil && w.w-w.r < n {
			if errors.Is(err, io.EOF) {
				return gomysql.ErrInvalidConn
			}
			return err
		}
	}
	return nil
}

// reply reads the server's answer to an execute: an OK packet, an error,
// or a result set (kept in res when s returns rows). Should more results
// follow, they are read and dropped.
func (w *wire) reply(s *stmt, res *result) error {
	for first := true; ; first = false {
		status, err := w.result(s, res, first)
		if err != nil || status&statusMoreResults == 0 {
			return err
		}
	}
}

// result reads one result; keep says whether it is the one to keep.
func (w *wire) result(s *stmt, res *result, keep bool) (status uint16, err error) {
	pkt, err := w.packet()
	if err != nil {
		return 0, err
	}
	switch pkt[0] {
	case 0x00:
		affected, status, err := okPacket(pkt)
		if keep {
			if s.rows {
				res.reset()
			} else {
				res.setExec(int64(affected))
			}
		}
		return status, err
	case 0xff:
		return 0, errPacket(pkt)
	}
	ncols, m, null := lenEnc(pkt)
	if null || m == 0 {
		return 0, errMalformed
	}
	metadata := !w.cacheMeta || m < len(pkt) && pkt[m] == 1
	cols := s.cols
	if metadata {
		cols = cols[:0]
		for range ncols {
			pkt, err := w.packet()
			if err != nil {
				return 0, err
			}
			if !keep { // a later result's rows are not decoded
				continue
			}
			col, ok := parseColumn(pkt)
			if !ok {
				return 0, errMalformed
			}
			cols = append(cols, col)
		}
		if keep {
			s.cols = cols
		}
	} else if keep && uint64(len(cols)) != ncols {
		return 0, errMalformed
	}
	if !w.deprecateEOF {
		if _, err := w.packet(); err != nil { // EOF after the columns
			return 0, err
		}
	}

	rows := keep && s.rows
	if rows {
		res.reset()
		res.nfields = len(cols)
		res.counter = drivers.CntRead
	}
	var bad error // a value that did not decode: reported after the last row
	for {
		pkt, err := w.packet()
		if err != nil {
			return 0, fetchErr(err, rows)
		}
		switch {
		case len(pkt) > 0 && pkt[0] == 0x00:
			if rows && bad == nil {
				bad = res.appendBinaryRow(pkt, cols)
			}
		case len(pkt) > 0 && pkt[0] == 0xfe:
			if w.deprecateEOF {
				_, status, err = okPacket(pkt)
			} else if len(pkt) >= 5 {
				status = uint16(pkt[3]) | uint16(pkt[4])<<8
			} else {
				err = errMalformed
			}
			if err == nil {
				err = bad
			}
			if err != nil && rows {
				res.reset()
			}
			if keep && !s.rows {
				res.setExec(0)
			}
			return status, fetchErr(err, rows)
		case len(pkt) > 0 && pkt[0] == 0xff:
			if rows {
				res.reset()
			}
			return 0, fetchErr(errPacket(pkt), rows)
		default:
			return 0, fetchErr(errMalformed, rows)
		}
	}
}

// fetchError is an error met while reading rows, which the reference
// reports from mysql_stmt_store_result().
type fetchError struct{ error }

func fetchErr(err error, rows bool) error {
	if err == nil || !rows {
		return err
	}
	return fetchError{err}
}

// okPacket reads the affected rows and the status of an OK packet.
func okPacket(pkt []byte) (affected uint64, status uint16, err error) {
	affected, n, _ := lenEnc(pkt[1:])
	_, m, _ := lenEnc(pkt[1+n:])
	pos := 1 + n + m
	if n == 0 || m == 0 || len(pkt) < pos+2 {
		return 0, 0, errMalformed
	}
	return affected, uint16(pkt[pos]) | uint16(pkt[pos+1])<<8, nil
}

// errPacket converts an ERR packet.
func errPacket(pkt []byte) error {
	if len(pkt) < 3 {
		return errMalformed
	}
	e := &gomysql.MySQLError{Number: binary.LittleEndian.Uint16(pkt[1:3])}
	msg := pkt[3:]
	if len(msg) >= 6 && msg[0] == '#' {
		copy(e.SQLState[:], msg[1:6])
		msg = msg[6:]
	}
	e.Message = string(msg)
	return e
}

// parseColumn reads type, flags and decimals from a column definition:
// six length-encoded strings (catalog, schema, table, original table,
// name, original name), then the fixed-length fields.
func parseColumn(pkt []byte) (column, bool) {
	pos := 0
	for range 6 {
		n, m, null := lenEnc(pkt[pos:])
		if m == 0 || null {
			return column{}, false
		}
		pos += m + int(n)
		if pos > len(pkt) {
			return column{}, false
		}
	}
	// length of the fixed fields, character set (2), column length (4),
	// type (1), flags (2), decimals (1)
	if len(pkt) < pos+1+10 {
		return column{}, false
	}
	f := pkt[pos+1:]
	flags := uint16(f[7]) | uint16(f[8])<<8
	return column{typ: f[6], unsigned: flags&flagUnsigned != 0, decimals: f[9]}, true
}

// lenEnc reads a length-encoded integer: its value, its size in bytes (0
// when b is too short) and whether it is the NULL marker.
func lenEnc(b []byte) (v uint64, n int, null bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	switch b[0] {
	case 0xfb:
		return 0, 1, true
	case 0xfc:
		if len(b) < 3 {
			return 0, 0, false
		}
		return uint64(b[1]) | uint64(b[2])<<8, 3, false
	case 0xfd:
		if len(b) < 4 {
			return 0, 0, false
		}
		return uint64(b[1]) | uint64(b[2])<<8 | uint64(b[3])<<16, 4, false
	case 0xfe:
		if len(b) < 9 {
			return 0, 0, false
		}
		return binary.LittleEndian.Uint64(b[1:]), 9, false
	}
	return uint64(b[0]), 1, false
}

func appendLenEnc(b []byte, v uint64) []byte {
	switch {
	case v < 0xfb:
		return append(b, byte(v))
	case v <= 0xffff:
		return append(b, 0xfc, byte(v), byte(v>>8))
	case v <= 0xffffff:
		return append(b, 0xfd, byte(v), byte(v>>8), byte(v>>16))
	}
	return binary.LittleEndian.AppendUint64(append(b, 0xfe), v)
}

// appendBinaryRow decodes one binary-protocol row into r as the text
// protocol would have sent it (the text go-sql-driver's values gave).
func (r *result) appendBinaryRow(pkt []byte, cols []column) error {
	pos := 1 + (len(cols)+9)/8
	if pos > len(pkt) {
		return errMalformed
	}
	nulls := pkt[1:pos]
	for i, col := range cols {
		start := len(r.data)
		if nulls[(i+2)/8]&(1<<((i+2)%8)) != 0 || col.typ == typeNull {
			r.cells = append(r.cells, cell{start: start, end: start, null: true})
			continue
		}
		var size int
		switch col.typ {
		case typeTiny:
			size = 1
		case typeShort, typeYear:
			size = 2
		case typeLong, typeInt24, typeFloat:
			size = 4
		case typeLongLong, typeDouble:
			size = 8
		}
		if size > 0 {
			if len(pkt)-pos < size {
				return errMalformed
			}
			r.data = appendFixed(r.data, pkt[pos:pos+size], col)
			pos += size
			r.cells = append(r.cells, cell{start: start, end: len(r.data)})
			continue
		}
		n, m, null := lenEnc(pkt[pos:])
		if m == 0 || uint64(len(pkt)-pos-m) < n {
			return errMalformed
		}
		v := pkt[pos+m : pos+m+int(n)]
		pos += m + int(n)
		if null {
			r.cells = append(r.cells, cell{start: start, end: start, null: true})
			continue
		}
		switch col.typ {
		case typeDate, typeNewDate, typeDateTime, typeTimestamp:
			var err error
			if r.data, err = appendDateTime(r.data, v, col); err != nil {
				return err
			}
		case typeTime:
			var err error
			if r.data, err = appendTime(r.data, v, col.decimals); err != nil {
				return err
			}
		case typeDecimal, typeNewDecimal, typeVarChar, typeBit, typeVector, typeJSON,
			typeGeometry, typeString, 0xf7, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd:
			// enum, set, the blobs and var_string are 0xf7-0xfd
			r.data = append(r.data, v...)
		default:
			return fmt.Errorf("unknown field type %d", col.typ)
		}
		r.cells = append(r.cells, cell{start: start, end: len(r.data)})
	}
	r.nrows++
	return nil
}

// appendFixed appends a fixed-size binary number.
func appendFixed(b, v []byte, col column) []byte {
	switch col.typ {
	case typeFloat:
		return appendFloat(b, float64(math.Float32frombits(binary.LittleEndian.Uint32(v))), 32)
	case typeDouble:
		return appendFloat(b, math.Float64frombits(binary.LittleEndian.Uint64(v)), 64)
	}
	var u uint64
	for i := len(v) - 1; i >= 0; i-- {
		u = u<<8 | uint64(v[i])
	}
	if col.unsigned {
		return strconv.AppendUint(b, u, 10)
	}
	shift := 64 - 8*len(v) // sign-extend
	return strconv.AppendInt(b, int64(u<<shift)>>shift, 10)
}

// fracDigits is how many fractional digits a temporal column shows.
func fracDigits(decimals byte) (int, error) {
	switch {
	case decimals == 0 || decimals == 0x1f:
		return 0, nil
	case decimals <= 6:
		return int(decimals), nil
	}
	return 0, fmt.Errorf("protocol error, illegal decimals value %d", decimals)
}

// appendDateTime appends a binary DATE, DATETIME or TIMESTAMP (0, 4, 7 or
// 11 bytes: year, month, day, hour, minute, second, microseconds) as
// "YYYY-MM-DD[ hh:mm:ss[.ffffff]]", the fraction cut to the column's
// decimals.
func appendDateTime(b, v []byte, col column) ([]byte, error) {
	if len(v) != 0 && len(v) != 4 && len(v) != 7 && len(v) != 11 {
		return b, fmt.Errorf("illegal DATETIME packet length %d", len(v))
	}
	var f [11]byte
	copy(f[:], v)
	year := int(binary.LittleEndian.Uint16(f[0:2]))
	b = append2(append2(b, year/100), year%100)
	b = append2(append(b, '-'), int(f[2]))
	b = append2(append(b, '-'), int(f[3]))
	if col.typ == typeDate || col.typ == typeNewDate {
		return b, nil
	}
	digits, err := fracDigits(col.decimals)
	if err != nil {
		return b, err
	}
	b = append2(append(b, ' '), int(f[4]))
	b = append2(append(b, ':'), int(f[5]))
	b = append2(append(b, ':'), int(f[6]))
	return appendFraction(b, binary.LittleEndian.Uint32(f[7:11]), digits), nil
}

// appendTime appends a binary TIME (0, 8 or 12 bytes: sign, days, hours,
// minutes, seconds, microseconds) as "[-]hh:mm:ss[.ffffff]", hours
// counting the days.
func appendTime(b, v []byte, decimals byte) ([]byte, error) {
	if len(v) != 0 && len(v) != 8 && len(v) != 12 {
		return b, fmt.Errorf("invalid TIME packet length %d", len(v))
	}
	digits, err := fracDigits(decimals)
	if err != nil {
		return b, err
	}
	var f [12]byte
	copy(f[:], v)
	if f[0] == 1 {
		b = append(b, '-')
	}
	hours := int64(binary.LittleEndian.Uint32(f[1:5]))*24 + int64(f[5])
	if hours >= 100 {
		b = strconv.AppendInt(b, hours, 10)
	} else {
		b = append2(b, int(hours))
	}
	b = append2(append(b, ':'), int(f[6]))
	b = append2(append(b, ':'), int(f[7]))
	return appendFraction(b, binary.LittleEndian.Uint32(f[8:12]), digits), nil
}

// append2 appends 0 <= n < 100 as two digits.
func append2(b []byte, n int) []byte {
	return append(b, byte('0'+n/10%10), byte('0'+n%10))
}

// appendFraction appends the first digits of a six-digit microsecond
// count after a point.
func appendFraction(b []byte, micros uint32, digits int) []byte {
	if digits == 0 {
		return b
	}
	var f [7]byte
	f[0] = '.'
	for i := 6; i >= 1; i-- {
		f[i] = byte('0' + micros%10)
		micros /= 10
	}
	return append(b, f[:1+digits]...)
}
