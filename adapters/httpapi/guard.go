package httpapi

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
)

// guardBody is the outermost layer: it caps the request body with the server's own
// ResponseWriter, and ends the connection of every refused body (413) with a lingering close.
//
// http.MaxBytesReader tells the server to close the connection only when it is given the
// server's ResponseWriter; inside gzhttp, the status writers or huma it is not, and the server
// would go on reading the rest of a refused chunked body as further requests (request
// smuggling). huma also refuses bodies over an operation's own limit by reading through a
// limit of its own, which the server never sees. So any 413, whoever writes it, ends the
// connection: nothing after the refused body is ever parsed as a request.
//
// Closing at once, though, while the client is still sending its body makes the kernel reset
// the connection, and most clients (Go's net/http among them) then lose the 413 they were
// about to read. So, as nginx does (lingering close), the 413 is written on the hijacked
// connection with Connection: close, the write side is shut, and whatever the client still
// sends is read and thrown away, for a bounded time and size, before the connection closes.
func guardBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, n)
		}
		if r.ProtoMajor >= 2 {
			// HTTP/2 frames every body, so nothing can be smuggled; and Connection: close
			// would shut down every stream of the connection.
			next.ServeHTTP(w, r)
			return
		}
		_, hijackable := w.(http.Hijacker)
		rw := &refusalWriter{ResponseWriter: w, hold: hijackable}
		next.ServeHTTP(rw, r)
		if rw.refused && rw.hold {
			rw.lingeringClose()
		}
	})
}

// Bounds of the lingering close of a refused body: the client gets lingerTime in all, at most
// lingerIdle between two reads, and lingerBytes, after which the connection closes whatever it
// still sends.
const (
	lingerTime  = 10 * time.Second
	lingerIdle  = 2 * time.Second
	lingerBytes = 32 << 20
)

// refusalWriter holds back a 413 (status, headers and body) so that guardBody writes it on the
// hijacked connection; without a hijackable connection it only adds Connection: close.
type refusalWriter struct {
	http.ResponseWriter
	hold    bool
	refused bool
	status  int
	header  http.Header
	body    bytes.Buffer
}

func (w *refusalWriter) WriteHeader(code int) {
	if code == http.StatusRequestEntityTooLarge && !w.refused {
		w.refused = true
		w.Header().Set("Connection", "close")
		if w.hold {
			w.status, w.header = code, w.Header().Clone()
			return
		}
	}
	if w.refused && w.hold {
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *refusalWriter) Write(b []byte) (int, error) {
	if w.refused && w.hold {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes flushes through (the export streams).
func (w *refusalWriter) Flush() {
	if w.refused && w.hold {
		return
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// lingeringClose writes the held 413 on the hijacked connection, shuts the write side, reads
// and discards what the client still sends (within the linger bounds), and closes.
func (w *refusalWriter) lingeringClose() {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		// Not hijackable after all: answer through the server, which closes at once.
		for k, v := range w.header {
			w.ResponseWriter.Header()[k] = v
		}
		w.ResponseWriter.WriteHeader(w.status)
		w.ResponseWriter.Write(w.body.Bytes()) //nolint:errcheck // the client may be gone
		return
	}
	defer conn.Close()
	h := w.header
	h.Del("Transfer-Encoding")
	h.Set("Content-Length", strconv.Itoa(w.body.Len()))
	h.Set("Connection", "close")
	if h.Get("Date") == "" {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP/1.1 %d %s\r\n", w.status, http.StatusText(w.status))
	h.Write(&out) //nolint:errcheck // a bytes.Buffer does not fail
	out.WriteString("\r\n")
	out.Write(w.body.Bytes())
	start := time.Now()
	conn.SetWriteDeadline(start.Add(lingerTime)) //nolint:errcheck // a deadline on a live conn
	if _, err := conn.Write(out.Bytes()); err != nil {
		return
	}
	if cw, ok := conn.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite() //nolint:errcheck // the read loop below ends on any error
	}
	discard(conn, brw.Reader, start.Add(lingerTime))
}

// discard reads and throws away what arrives on conn (through r, its buffered reader) until
// the client closes, goes quiet for lingerIdle, sends lingerBytes, or end passes.
func discard(conn net.Conn, r interface{ Read([]byte) (int, error) }, end time.Time) {
	buf := make([]byte, 32<<10)
	for total := 0; total < lingerBytes; {
		d := time.Now().Add(lingerIdle)
		if d.After(end) {
			d = end
		}
		conn.SetReadDeadline(d) //nolint:errcheck // the read fails past it
		n, err := r.Read(buf)
		total += n
		if err != nil {
			return
		}
	}
}

// cleanPaths answers a path with an empty, "." or ".." segment with the JSON 404 itself:
// ServeMux would clean it and redirect with an HTML body, which no client of this API expects.
func cleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.Contains(p, "//") || dotSegment(p, "/.") || dotSegment(p, "/..") {
			writeError(w, http.StatusNotFound, core.CodeNotFound, "no such endpoint: "+r.Method+" "+p)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// dotSegment reports whether path has the segment seg ("/." or "/..") in the middle or at its
// end: whether path+"/" contains seg+"/", without making path+"/" for every request.
func dotSegment(path, seg string) bool {
	return strings.HasSuffix(path, seg) || strings.Contains(path, seg+"/")
}
