package mysql

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sysbench-go/sysbench-go/options"
)

// tlsConfig turns --mysql-ssl and friends into a TLS configuration (nil for
// plain connections) and whether plain text is an acceptable fallback.
//
// --mysql-ssl takes the reference's on/off, or one of libmysqlclient's
// --ssl-mode values: DISABLED, PREFERRED, REQUIRED (encrypt, do not
// verify), VERIFY_CA (verify the chain against --mysql-ssl-ca),
// VERIFY_IDENTITY (also verify the host name). The reference's on, built
// on Debian's libmariadb, asks for TLS and goes on in plain text with a
// server that has none: PREFERRED.
func tlsConfig(v *options.Values) (*tls.Config, bool, error) {
	raw := strings.TrimSpace(v.String("mysql-ssl"))
	mode := strings.ToUpper(raw)
	if b, err := options.ParseBool(raw); err == nil && raw != "" {
		mode = "DISABLED"
		if b {
			mode = "PREFERRED"
		}
	}
	if raw == "" {
		mode = "DISABLED"
	}
	switch mode {
	case "DISABLED":
		return nil, false, nil
	case "PREFERRED", "REQUIRED", "VERIFY_CA", "VERIFY_IDENTITY":
	default:
		return nil, false, fmt.Errorf("invalid --mysql-ssl value '%s' (want on, off, DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY)", raw)
	}

	c := &tls.Config{MinVersion: tls.VersionTLS12}
	caFile := v.String("mysql-ssl-ca")
	certFile := v.String("mysql-ssl-cert")
	keyFile := v.String("mysql-ssl-key")
	if strings.EqualFold(raw, "on") && certFile == "" && keyFile == "" {
		// The reference's --mysql-ssl=on loads these from the current
		// directory; use them when they are there.
		if fileExists("client-cert.pem") && fileExists("client-key.pem") {
			certFile, keyFile = "client-cert.pem", "client-key.pem"
		}
	}
	if (certFile == "") != (keyFile == "") {
		return nil, false, errors.New("--mysql-ssl-cert and --mysql-ssl-key must be given together")
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, false, fmt.Errorf("loading SSL client certificate: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	var roots *x509.CertPool
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, false, fmt.Errorf("reading SSL CA: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, false, fmt.Errorf("no certificates found in %s", caFile)
		}
	}
	if cipher := v.String("mysql-ssl-cipher"); cipher != "" {
		ids, err := cipherSuites(cipher)
		if err != nil {
			return nil, false, err
		}
		c.CipherSuites = ids
	}

	switch mode {
	case "PREFERRED", "REQUIRED":
		c.InsecureSkipVerify = true
	case "VERIFY_CA":
		if roots == nil {
			return nil, false, errors.New("--mysql-ssl=VERIFY_CA needs --mysql-ssl-ca")
		}
		// Verify the chain but not the host name.
		c.InsecureSkipVerify = true
		c.VerifyPeerCertificate = func(rawCerts [][]byte, _ [][]*x509.Certificate) error {
			return verifyChain(rawCerts, roots)
		}
	case "VERIFY_IDENTITY":
		c.RootCAs = roots // nil means the system pool
	}
	return c, mode == "PREFERRED", nil
}

func verifyChain(rawCerts [][]byte, roots *x509.CertPool) error {
	if len(rawCerts) == 0 {
		return errors.New("server sent no certificate")
	}
	certs := make([]*x509.Certificate, len(rawCerts))
	for i, raw := range rawCerts {
		c, err := x509.ParseCertificate(raw)
		if err != nil {
			return err
		}
		certs[i] = c
	}
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	_, err := certs[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}

// cipherSuites maps a colon- or comma-separated list of cipher names, in
// IANA (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) or OpenSSL
// (ECDHE-RSA-AES128-GCM-SHA256) spelling, to Go's suite IDs.
func cipherSuites(list string) ([]uint16, error) {
	byName := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		byName[s.Name] = s.ID
		byName[openSSLName(s.Name)] = s.ID
	}
	var ids []uint16
	for _, n := range strings.FieldsFunc(list, func(r rune) bool { return r == ':' || r == ',' }) {
		id, ok := byName[strings.ToUpper(strings.TrimSpace(n))]
		if !ok {
			return nil, fmt.Errorf("unsupported SSL cipher '%s'", n)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// openSSLName derives OpenSSL's name for the common ECDHE/RSA AES-GCM,
// AES-CBC and CHACHA20 suites from the IANA name.
func openSSLName(iana string) string {
	s := strings.TrimPrefix(iana, "TLS_")
	s = strings.Replace(s, "_WITH_", "_", 1)
	s = strings.TrimPrefix(s, "RSA_") // plain RSA key exchange has no prefix
	r := strings.NewReplacer("AES_128", "AES128", "AES_256", "AES256", "CHACHA20_POLY1305", "CHACHA20-POLY1305",
		"_SHA256", "-SHA256", "_SHA384", "-SHA384", "_CBC_SHA", "-SHA", "_GCM", "-GCM", "_", "-")
	return r.Replace(s)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
