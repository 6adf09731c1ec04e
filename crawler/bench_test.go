package crawler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/consentd/consentd/library/librarytest"
)

// syntheticSite serves a 2,000-page site: page i links to pages 20i+1..20i+20 (a tree of depth
// 3), and each page carries a GA snippet, a Meta pixel snippet, a third-party script and ~10 KB
// of article text.
func syntheticSite(pages int) http.Handler {
	filler := []byte(strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.</p>\n", 120))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSuffix(r.URL.Path, ".html"), "/p"))
		if r.URL.Path == "/" {
			n, err = 0, nil
		}
		if err != nil || n >= pages {
			http.NotFound(w, r)
			return
		}
		// The head is built per page, the filler shared; with a Content-Length the server writes
		// the pieces straight out, so the harness costs the crawl little.
		head := make([]byte, 0, 1536)
		head = fmt.Appendf(head, `<!doctype html><html><head><title>Page %d</title>
<script async src="https://www.googletagmanager.com/gtag/js?id=G-BENCH12345"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','G-BENCH12345');</script>
<script>!function(f,b,e,v){}(window,document,'script','https://connect.facebook.net/en_US/fbevents.js');fbq('init','112233445566778');</script>
<script src="https://cdn.widgets-bench.example/w.js"></script></head><body><nav>`, n)
		for k := 20*n + 1; k <= 20*n+20 && k < pages; k++ {
			head = fmt.Appendf(head, `<a href="/p%d.html">Page %d</a> `, k, k)
		}
		head = append(head, "</nav>"...)
		const tail = "</body></html>"
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(head)+len(filler)+len(tail)))
		_, _ = w.Write(head)
		_, _ = w.Write(filler)
		_, _ = io.WriteString(w, tail)
	})
}

// BenchmarkCrawl crawls the synthetic site end to end on loopback; run with -cpu 1,2.
func BenchmarkCrawl(b *testing.B) {
	const pages = 2000
	var served atomic.Int64
	h := syntheticSite(pages)
	tb := newTestbed(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w, n: &served}
		h.ServeHTTP(cw, r)
	}))
	e := New(librarytest.Index(b))
	tb.install(e, nil)
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	defer close(stop)
	served.Store(0)
	var fetched int
	start := time.Now()
	for b.Loop() {
		res, err := e.Crawl(context.Background(), Options{StartURLs: []string{"http://bench.example/"},
			MaxPages: pages, MaxDepth: 3, IgnoreRobots: true, Concurrency: 2 * runtime.GOMAXPROCS(0), Timeout: time.Minute})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Pages) != pages || len(res.Services) != 2 {
			b.Fatalf("%d pages, %d services", len(res.Pages), len(res.Services))
		}
		fetched += len(res.Pages)
	}
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(fetched)/secs, "pages/s")
	b.ReportMetric(float64(served.Load())/secs/1e6, "MB/s")
	b.ReportMetric(float64(peak.Load())/1e6, "peak-heap-MB")
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.ResponseWriter.Write(p)
}
