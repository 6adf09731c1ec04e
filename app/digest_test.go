package app

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/core"
	scanpkg "github.com/consentd/consentd/core/scan"
)

// smtpServer is a minimal SMTP server for tests: it accepts every message and keeps it.
type smtpServer struct {
	ln   net.Listener
	mu   sync.Mutex
	msgs []smtpMessage
}

type smtpMessage struct {
	From, To, Data string
}

func startSMTP(t *testing.T) *smtpServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &smtpServer{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *smtpServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) { fmt.Fprintf(c, "%s\r\n", line) }
	say("220 test ESMTP")
	var m smtpMessage
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		cmd := strings.ToUpper(strings.TrimSpace(line))
		switch {
		case strings.HasPrefix(cmd, "EHLO"), strings.HasPrefix(cmd, "HELO"):
			say("250 test")
		case strings.HasPrefix(cmd, "MAIL FROM:"):
			m = smtpMessage{From: strings.TrimSpace(line[10:])}
			say("250 ok")
		case strings.HasPrefix(cmd, "RCPT TO:"):
			m.To = strings.Trim(strings.TrimSpace(line[8:]), "<>")
			say("250 ok")
		case cmd == "DATA":
			say("354 go on")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			m.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, m)
			s.mu.Unlock()
			say("250 queued")
		case cmd == "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func (s *smtpServer) messages() []smtpMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]smtpMessage(nil), s.msgs...)
}

// TestEmailDigest: with CONSENTD_SMTP_URL set, a site's digest address receives, through an
// SMTP server started by the test, what its rescan found (the added service and cookie) with an
// unsubscribe link; following the link removes the address, and no digest goes out when
// nothing changed.
func TestEmailDigest(t *testing.T) {
	t.Parallel()
	mail := startSMTP(t)
	r := serve(t, "sqlite", func(c *Config) {
		c.ScanMode = core.ScanStatic
		c.SMTPURL = "smtp://" + mail.ln.Addr().String() + "?from=consentd@test.example"
		c.DigestInterval = 300 * time.Millisecond
	})
	var changed atomic.Bool
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/" {
			http.NotFound(w, req)
			return
		}
		page := gaPage
		if changed.Load() {
			page = pixelPage
			http.SetCookie(w, &http.Cookie{Name: "_fbp", Value: "fb.1.1.1", Path: "/", MaxAge: 7776000})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	t.Cleanup(target.Close)
	site := r.createSite(t, target.URL+"/")
	var patched struct {
		DigestEmails []string `json:"digestEmails"`
	}
	r.call(t, "PATCH", "/sites/"+site.ID, map[string]any{"digestEmails": []string{"owner@shop.example"}}, &patched)
	if len(patched.DigestEmails) != 1 || patched.DigestEmails[0] != "owner@shop.example" {
		t.Fatalf("digestEmails = %v", patched.DigestEmails)
	}
	scan := func() {
		var s scanpkg.Scan
		r.call(t, "POST", "/sites/"+site.ID+"/scan", nil, &s)
		if got := r.waitScan(t, site.ID, s.ID, 30*time.Second); got.Status != scanpkg.ScanCompleted {
			t.Fatalf("scan %s", got.Status)
		}
	}
	scan()
	time.Sleep(time.Second) // digests run: a first scan is no change, so no email
	if n := len(mail.messages()); n != 0 {
		t.Fatalf("%d digests without a change", n)
	}
	changed.Store(true)
	scan()
	deadline := time.Now().Add(20 * time.Second)
	for len(mail.messages()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no digest arrived")
		}
		time.Sleep(50 * time.Millisecond)
	}
	m := mail.messages()[0]
	for _, want := range []string{"Subject: consentd: what changed on Shop", "1 service added", "+ service Meta Pixel (marketing)",
		"+ cookie _fbp", "List-Unsubscribe: <", "Unsubscribe: http"} {
		if !strings.Contains(m.Data, want) {
			t.Errorf("digest lacks %q:\n%s", want, m.Data)
		}
	}
	if m.To != "owner@shop.example" || !strings.Contains(m.From, "consentd@test.example") {
		t.Errorf("digest from %s to %s", m.From, m.To)
	}
	link := regexp.MustCompile(`(?m)^Unsubscribe: \S+?(/api/v1/unsubscribe/[a-z0-9.-]+)`).FindStringSubmatch(m.Data)
	if link == nil {
		t.Fatalf("no unsubscribe link in:\n%s", m.Data)
	}
	res, err := http.Get(strings.TrimSuffix(r.base, "/api/v1") + link[1])
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("unsubscribe link %s answered %d %s", link[1], res.StatusCode, b)
	}
	var after struct {
		DigestEmails []string `json:"digestEmails"`
	}
	r.call(t, "GET", "/sites/"+site.ID, nil, &after)
	if len(after.DigestEmails) != 0 {
		t.Fatalf("still subscribed after the link: %v", after.DigestEmails)
	}
	if res, _ := http.Get(strings.TrimSuffix(r.base, "/api/v1") + link[1]); res.StatusCode != http.StatusNotFound {
		t.Fatalf("a used link answered %d, want 404", res.StatusCode)
	}
}
