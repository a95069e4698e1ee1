package cli

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/sysbench-go/sysbench-go/internal/testenv"
)

// noTLSProxy forwards connections to a MySQL/MariaDB server at addr,
// clearing CLIENT_SSL in the server's greeting: to a client, a server
// without TLS. It returns the proxy's port.
func noTLSProxy(t *testing.T, addr string) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				forwardWithoutTLS(c, addr)
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port
}

func forwardWithoutTLS(client net.Conn, addr string) {
	defer client.Close()
	server, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	defer server.Close()
	// The greeting: a 4-byte header (length, sequence), then protocol
	// version, server version (NUL-terminated), connection id (4), the
	// first 8 bytes of the scramble, a filler byte, and the low 16 bits
	// of the capabilities.
	var head [4]byte
	if _, err := io.ReadFull(server, head[:]); err != nil {
		return
	}
	body := make([]byte, int(head[0])|int(head[1])<<8|int(head[2])<<16)
	if _, err := io.ReadFull(server, body); err != nil {
		return
	}
	if i := bytes.IndexByte(body[1:], 0); i >= 0 && 1+i+1+4+8+1+2 <= len(body) {
		at := 1 + i + 1 + 4 + 8 + 1
		caps := binary.LittleEndian.Uint16(body[at:])
		binary.LittleEndian.PutUint16(body[at:], caps&^0x0800) // CLIENT_SSL
	}
	if _, err := client.Write(append(head[:], body...)); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { io.Copy(server, client); done <- struct{}{} }()
	go func() { io.Copy(client, server); done <- struct{}{} }()
	<-done
}

// Issue 28, item 9: --mysql-ssl=on against a server without TLS connects
// in plain text and succeeds, as the reference does (Debian's sysbench,
// on libmariadb), where REQUIRED fails with error 2026.
func TestMySQLSSLOnWithoutServerTLS(t *testing.T) {
	t.Parallel()
	srv := testenv.OwnDatabase(t, "mysql")
	if srv.Host == "" {
		t.Skip("the test server is reached by its socket: no TCP port to proxy")
	}
	port := noTLSProxy(t, net.JoinHostPort(srv.Host, srv.Port))
	conn := []string{"--mysql-host=127.0.0.1", "--mysql-port=" + strconv.Itoa(port),
		"--mysql-user=" + srv.User, "--mysql-password=" + srv.Password, "--mysql-db=" + srv.DB}
	args := func(ssl, command string) []string {
		return append([]string{"oltp_read_only", "--tables=1", "--table-size=10", "--mysql-ssl=" + ssl, command}, conn...)
	}
	t.Cleanup(func() { runCLI(t, args("off", "cleanup")...) })
	for _, command := range []string{"prepare", "cleanup"} {
		if out, code := runCLI(t, args("on", command)...); code != 0 || strings.Contains(out, "FATAL") {
			t.Errorf("ours, --mysql-ssl=on %s: exit %d\n%s", command, code, out)
		}
	}
	if out, code := runCLI(t, args("REQUIRED", "prepare")...); code != 1 || !strings.Contains(out, "FATAL: error 2026") {
		t.Errorf("ours, --mysql-ssl=REQUIRED without server TLS: exit %d\n%s", code, out)
	}
	// The reference, beside: the same answer.
	ref := testenv.Tool(t, "sysbench", "apt-get install sysbench")
	for _, command := range []string{"prepare", "cleanup"} {
		cmd := exec.Command(ref, args("on", command)...)
		cmd.Dir = t.TempDir() // no client-cert.pem there
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if (err != nil && !errors.As(err, &ee)) || strings.Contains(string(out), "FATAL") {
			t.Errorf("the reference, --mysql-ssl=on %s: %v\n%s", command, err, out)
		}
	}
}
