package httpapi_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestRefusedBodyClosesConnection: a chunked body over the limit gets its 413 and the
// connection ends there. Nothing after the refused body — neither the rest of its chunks nor a
// request pipelined behind it — is read as a further request, whatever wraps the writer (gzip,
// status writers, huma).
func TestRefusedBodyClosesConnection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	// the inner request is what a smuggler would hide in the body
	inner := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	cases := []struct {
		name, path, method, key string
		size                    int
	}{
		{"public consent (op limit)", "/api/v1/public/" + pk + "/consent", "POST", "", 64 << 10},
		{"public consent (server limit)", "/api/v1/public/" + pk + "/consent", "POST", "", 2 << 20},
		{"create site", "/api/v1/sites", "POST", e.keyA, 2 << 20},
		{"banner patch", "/api/v1/sites/" + id + "/banner", "PATCH", e.keyA, 2 << 20},
	}
	for _, c := range cases {
		for _, gzip := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s gzip=%v", c.name, gzip), func(t *testing.T) {
				conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // a test deadline
				go func() {
					// The server may stop reading at any point; write errors are expected.
					w := bufio.NewWriter(conn)
					fmt.Fprintf(w, "%s %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n", c.method, c.path)
					if c.key != "" {
						fmt.Fprintf(w, "Authorization: Bearer %s\r\n", c.key)
					}
					if gzip {
						fmt.Fprintf(w, "Accept-Encoding: gzip\r\n")
					}
					fmt.Fprintf(w, "\r\n")
					chunk := `{"name":"` + strings.Repeat(inner, 4096/len(inner))
					for sent := 0; sent < c.size; sent += len(chunk) {
						fmt.Fprintf(w, "%x\r\n%s\r\n", len(chunk), chunk)
						chunk = strings.Repeat(inner, 4096/len(inner))
					}
					fmt.Fprintf(w, "0\r\n\r\n%s", inner)
					w.Flush()                        //nolint:errcheck // see above
					conn.(*net.TCPConn).CloseWrite() //nolint:errcheck // done sending: the server's lingering close ends at once
				}()
				br := bufio.NewReader(conn)
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("first response: %v", err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusRequestEntityTooLarge {
					t.Fatalf("status %d, want 413: %s", res.StatusCode, body)
				}
				if !res.Close {
					t.Errorf("413 without Connection: close (headers %v)", res.Header)
				}
				if res2, err := http.ReadResponse(br, nil); err == nil {
					b, _ := io.ReadAll(res2.Body)
					t.Fatalf("connection still served a request after the 413: %d %s", res2.StatusCode, b)
				}
			})
		}
	}
}

// TestGoClientReadsThe413: Go's http.Client, which sends a large body while it reads the
// answer, reads the 413 of a 3 MB banner body every time (the server drains what is still
// coming before it closes) rather than a connection reset; chunked (unknown length) and with a
// declared length alike.
func TestGoClientReadsThe413(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, _ := e.site()
	body := bytes.Repeat([]byte("x"), 3<<20)
	for _, declared := range []bool{true, false} {
		for i := range 20 {
			var rd io.Reader = bytes.NewReader(body)
			if !declared {
				rd = io.MultiReader(rd) // hides the length: chunked
			}
			req, err := http.NewRequest("PATCH", e.srv.URL+"/api/v1/sites/"+id+"/banner", rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+e.keyA)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("declared length %v, attempt %d: %v", declared, i, err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "too large") {
				t.Fatalf("declared length %v, attempt %d: %d %s", declared, i, res.StatusCode, b)
			}
		}
	}
}

// TestUnreadableBody: a body that cannot be read (malformed chunked encoding, or cut short) is
// the client's fault: 400, never 500, and no ERROR line.
func TestUnreadableBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, pk := e.site()
	for _, c := range []struct{ name, path, key, framing, body string }{
		{"bad chunk public", "/api/v1/public/" + pk + "/consent", "", "Transfer-Encoding: chunked", "5\r\n{\"a\":\r\nzz\r\n"},
		{"bad chunk management", "/api/v1/sites", e.keyA, "Transfer-Encoding: chunked", "5\r\n{\"a\":\r\nzz\r\n"},
		{"cut short", "/api/v1/sites", e.keyA, "Content-Length: 100", `{"name":"x"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(e.srv.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // a test deadline
			auth := ""
			if c.key != "" {
				auth = "Authorization: Bearer " + c.key + "\r\n"
			}
			fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s%s\r\n\r\n%s", c.path, auth, c.framing, c.body)
			conn.(*net.TCPConn).CloseWrite() //nolint:errcheck // the body ends here
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("response: %v", err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 400 {
				t.Fatalf("status %d, want 400: %s", res.StatusCode, b)
			}
			if errs := e.logs.errors(); len(errs) > 0 {
				t.Errorf("ERROR logged: %v", errs)
			}
		})
	}
}
