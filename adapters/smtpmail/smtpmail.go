// Package smtpmail sends consentd's email (the digests, the invitations) through an SMTP server named by a URL:
// smtp://[user:password@]host[:port]?from=ADDRESS (STARTTLS when the server offers it, port 25
// by default) or smtps://… (TLS from the start, port 465 by default).
package smtpmail

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// Mailer implements core.Mailer.
type Mailer struct {
	addr, host string
	implicit   bool
	auth       smtp.Auth
	from       string
}

var _ core.Mailer = (*Mailer)(nil)

// New parses an SMTP URL.
func New(raw string) (*Mailer, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, errors.New("smtp url: want smtp://[user:password@]host[:port]?from=ADDRESS or smtps://…")
	}
	m := &Mailer{host: u.Hostname(), implicit: u.Scheme == "smtps"}
	port := u.Port()
	if port == "" {
		port = "25"
		if m.implicit {
			port = "465"
		}
	}
	m.addr = net.JoinHostPort(m.host, port)
	if u.User != nil {
		pw, _ := u.User.Password()
		m.auth = smtp.PlainAuth("", u.User.Username(), pw, m.host)
	}
	m.from = u.Query().Get("from")
	if m.from == "" {
		m.from = "consentd@" + m.host
	}
	if _, err := mail.ParseAddress(m.from); err != nil {
		return nil, fmt.Errorf("smtp url: from %q: %w", m.from, err)
	}
	return m, nil
}

// Send implements core.Mailer.
func (m *Mailer) Send(ctx context.Context, msg core.EmailMessage) error {
	d := net.Dialer{Timeout: 15 * time.Second}
	var conn net.Conn
	var err error
	if m.implicit {
		conn, err = (&tls.Dialer{NetDialer: &d, Config: &tls.Config{ServerName: m.host}}).DialContext(ctx, "tcp", m.addr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", m.addr)
	}
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	} else {
		_ = conn.SetDeadline(time.Now().Add(time.Minute))
	}
	c, err := smtp.NewClient(conn, m.host)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp: %w", err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && !m.implicit {
		if err := c.StartTLS(&tls.Config{ServerName: m.host}); err != nil {
			return fmt.Errorf("smtp: starttls: %w", err)
		}
	}
	if m.auth != nil {
		if err := c.Auth(m.auth); err != nil {
			return fmt.Errorf("smtp: auth: %w", err)
		}
	}
	if err := c.Mail(m.from); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := c.Rcpt(msg.To); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if _, err := w.Write(m.compose(msg)); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	return c.Quit()
}

func (m *Mailer) compose(msg core.EmailMessage) []byte {
	var b bytes.Buffer
	h := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	h("From", m.from)
	h("To", msg.To)
	h("Subject", mime.QEncoding.Encode("utf-8", msg.Subject))
	h("Date", time.Now().Format(time.RFC1123Z))
	h("MIME-Version", "1.0")
	if msg.Unsubscribe != "" {
		h("List-Unsubscribe", "<"+msg.Unsubscribe+">")
		h("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")
	}
	if msg.HTML == "" {
		h("Content-Type", "text/plain; charset=utf-8")
		h("Content-Transfer-Encoding", "8bit")
		b.WriteString("\r\n")
		b.WriteString(crlf(msg.Text))
		return b.Bytes()
	}
	// Text and HTML as alternatives of one message (RFC 2046 §5.1.4), the preferred last.
	boundary := "consentd-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	h("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	b.WriteString("\r\n")
	for _, part := range []struct{ typ, body string }{{"text/plain", msg.Text}, {"text/html", msg.HTML}} {
		b.WriteString("--" + boundary + "\r\n")
		h("Content-Type", part.typ+"; charset=utf-8")
		h("Content-Transfer-Encoding", "8bit")
		b.WriteString("\r\n")
		b.WriteString(crlf(part.body))
		b.WriteString("\r\n")
	}
	b.WriteString("--" + boundary + "--\r\n")
	return b.Bytes()
}

// crlf ends every line with CRLF, as SMTP wants.
func crlf(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}
