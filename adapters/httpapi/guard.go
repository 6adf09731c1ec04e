package httpapi

import (
	"net/http"
	"strings"

	"github.com/consentd/consentd/core"
)

// guardBody is the outermost layer: it caps the request body with the server's own
// ResponseWriter, and makes every 413 end the connection.
//
// http.MaxBytesReader tells the server to close the connection only when it is given the
// server's ResponseWriter; inside gzhttp, the status writers or huma it is not, and the server
// would go on reading the rest of a refused chunked body as further requests (request
// smuggling). huma also refuses bodies over an operation's own limit by reading through a
// limit of its own, which the server never sees: so any 413, whoever writes it, carries
// Connection: close, which net/http honours by closing after the response.
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
		next.ServeHTTP(&refusalWriter{ResponseWriter: w}, r)
	})
}

// refusalWriter adds Connection: close to a 413.
type refusalWriter struct {
	http.ResponseWriter
}

func (w *refusalWriter) WriteHeader(code int) {
	if code == http.StatusRequestEntityTooLarge {
		w.Header().Set("Connection", "close")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Flush passes flushes through (the export streams).
func (w *refusalWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// cleanPaths answers a path with an empty, "." or ".." segment with the JSON 404 itself:
// ServeMux would clean it and redirect with an HTML body, which no client of this API expects.
func cleanPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.Contains(p, "//") || strings.Contains(p+"/", "/./") || strings.Contains(p+"/", "/../") {
			writeError(w, http.StatusNotFound, core.CodeNotFound, "no such endpoint: "+r.Method+" "+p)
			return
		}
		next.ServeHTTP(w, r)
	})
}
