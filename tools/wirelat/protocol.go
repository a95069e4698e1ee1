package main

import (
	"encoding/binary"
	"fmt"
)

// Kind names a request by what it asks of the server.
type Kind string

const (
	KindExecute Kind = "execute" // a prepared statement executed
	KindQuery   Kind = "query"   // a statement sent as text
	KindPrepare Kind = "prepare" // a statement prepared, not executed
	KindOther   Kind = "other"   // log-in, TLS, anything else
)

// Classifier names a request from the first bytes of its first segment,
// and says whether the server answers it at all.
type Classifier func(payload []byte) (kind Kind, reply bool)

// ClassifierFor returns the classifier of a protocol: "mysql" or "pgsql".
func ClassifierFor(proto string) (Classifier, error) {
	switch proto {
	case "mysql":
		return classifyMySQL, nil
	case "pgsql":
		return classifyPgSQL, nil
	}
	return nil, fmt.Errorf("unknown protocol %q (mysql or pgsql)", proto)
}

// MySQL command bytes (the first byte of a command packet's payload).
const (
	comQuit        = 0x01
	comQuery       = 0x03
	comStmtPrepare = 0x16
	comStmtExecute = 0x17
	comStmtSendLD  = 0x18
	comStmtClose   = 0x19
)

// classifyMySQL reads a command packet: 3 bytes of length, the sequence
// number (0 for a command), the command byte. A packet of a later sequence
// number continues a dialogue (the log-in) and is not a command.
func classifyMySQL(p []byte) (Kind, bool) {
	if len(p) < 5 || p[3] != 0 {
		return KindOther, true
	}
	switch p[4] {
	case comQuery:
		return KindQuery, true
	case comStmtExecute:
		return KindExecute, true
	case comStmtPrepare:
		return KindPrepare, true
	case comStmtClose, comStmtSendLD, comQuit:
		return KindOther, false
	}
	return KindOther, true
}

// classifyPgSQL walks the frontend messages the segment holds (a type
// byte and a 4-byte length each): a simple Query, an Execute (after its
// Bind, in the same write as clients send them), a Parse alone (a
// statement prepared), or Terminate, which has no answer. The startup
// and SSL requests have no type byte and come out as other.
func classifyPgSQL(p []byte) (Kind, bool) {
	var query, execute, parse bool
	first := true
	for len(p) >= 5 {
		t, n := p[0], binary.BigEndian.Uint32(p[1:5])
		if n < 4 || t < 'A' || t > 'z' {
			break
		}
		switch t {
		case 'Q':
			query = true
		case 'E':
			execute = true
		case 'P':
			parse = true
		case 'X':
			if first {
				return KindOther, false
			}
		}
		first = false
		if uint64(n)+1 >= uint64(len(p)) {
			break
		}
		p = p[n+1:]
	}
	switch {
	case query:
		return KindQuery, true
	case execute:
		return KindExecute, true
	case parse:
		return KindPrepare, true
	}
	return KindOther, true
}
