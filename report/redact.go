package report

import (
	"net/url"
	"regexp"
	"strings"
)

// SecretName tells an option whose value is never written.
func SecretName(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"password", "passwd", "secret", "token"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

const redacted = "<redacted>"

// kvPassword finds password=... in a key/value connection string.
var kvPassword = regexp.MustCompile(`(?i)\b(password|passwd|pwd)\s*=\s*('[^']*'|"[^"]*"|[^\s;&]*)`)

// RedactValue hides a secret option's value and any password inside a
// URL or key/value connection string.
func RedactValue(name, val string) string {
	if SecretName(name) && val != "" {
		return redacted
	}
	if strings.Contains(val, "://") {
		if u, err := url.Parse(val); err == nil && u.User != nil {
			if _, has := u.User.Password(); has {
				u.User = url.UserPassword(u.User.Username(), "REDACTED")
				val = strings.Replace(u.String(), "REDACTED", redacted, 1)
			}
		}
	}
	return kvPassword.ReplaceAllString(val, "${1}="+redacted)
}

// RedactArgs is a command line with secrets hidden.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		name, val, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if strings.HasPrefix(a, "--") && ok {
			out[i] = "--" + name + "=" + RedactValue(name, val)
		} else {
			out[i] = RedactValue("", a)
		}
	}
	return out
}
