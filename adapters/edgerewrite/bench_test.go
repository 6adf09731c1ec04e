package edgerewrite_test

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/adapters/edgerewrite"
)

// tagPage is a page of about size bytes full of tags: the usual mix of a shop's product
// list (links, images, divs, spans), with one held script, stylesheet, iframe and pixel every
// twenty products.
func tagPage(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>` +
		`<link rel="preconnect" href="https://www.googletagmanager.com"><link rel="stylesheet" href="/site.css">` +
		`<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9"></script></head><body><main>`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<div class="product" data-id="%d"><a href="/p/%d"><img src="/img/%d.jpg" alt="Product %d" width="200" height="200" loading="lazy"></a>`+
			`<h2 class="title"><a href="/p/%d">Product %d</a></h2><span class="price">%d.99 &euro;</span><button type="button" data-add="%d">Add</button></div>`+"\n", i, i, i, i, i, i, i%100, i)
		if i%20 == 0 {
			fmt.Fprintf(&b, `<script src="/js/widget-%d.js" defer></script><iframe src="https://www.youtube.com/embed/v%d" width="560" height="315"></iframe>`+
				`<noscript><img src="https://www.facebook.com/tr?id=1234567890123456&ev=PageView&noscript=1"></noscript>`+"\n", i, i)
		}
	}
	b.WriteString("</main></body></html>")
	return b.Bytes()
}

// BenchmarkRewrite is the rewriter's throughput on a 1 MB page full of tags, for a visitor
// whom tags are held (France, no decision): MB/s by the wall clock (one goroutine), and
// cpu-MB/s by the process's CPU time (user and system, the garbage collector's included),
// which a machine shared with other work does not skew as it does the wall clock.
func BenchmarkRewrite(b *testing.B) {
	p := tagPage(1 << 20)
	v := shopRules(b).Compile().Visitor(france, "", false)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	cpu0, n := cpuTime(), 0
	for b.Loop() {
		if err := edgerewrite.Rewrite(io.Discard, bytes.NewReader(p), v, page); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if d := cpuTime() - cpu0; d > 0 {
		b.ReportMetric(float64(n*len(p))/1e6/d.Seconds(), "cpu-MB/s")
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRewriteMemory rewrites pages of 1 MB and 50 MB, streamed from a reader that makes
// them up as it goes (the page is never in memory whole), and reports the peak heap in use
// while rewriting, above what was in use before (peak-heap-B, sampled every 100 µs), which is
// the same for both: memory does not grow with the page. The garbage collector runs at
// GOGC=5 meanwhile, so that the peak is what the rewriter keeps, not garbage awaiting a
// collection (the bytes allocated grow with the page: a few allocations per held element).
func BenchmarkRewriteMemory(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(5))
	v := shopRules(b).Compile().Visitor(france, "", false)
	unit := tagPage(64 << 10)
	for _, mb := range memPages {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			b.SetBytes(int64(mb << 20))
			var peak atomic.Uint64
			for b.Loop() {
				runtime.GC()
				var base runtime.MemStats
				runtime.ReadMemStats(&base)
				stop := make(chan struct{})
				done := make(chan struct{})
				go func() {
					defer close(done)
					var ms runtime.MemStats
					for {
						select {
						case <-stop:
							return
						case <-time.After(100 * time.Microsecond):
						}
						runtime.ReadMemStats(&ms)
						if ms.HeapInuse > base.HeapInuse {
							if d := ms.HeapInuse - base.HeapInuse; d > peak.Load() {
								peak.Store(d)
							}
						}
					}
				}()
				src := io.LimitReader(&repeat{unit: unit}, int64(mb<<20))
				if err := edgerewrite.Rewrite(io.Discard, src, v, page); err != nil {
					b.Fatal(err)
				}
				close(stop)
				<-done
			}
			b.ReportMetric(float64(peak.Load()), "peak-heap-B")
		})
	}
}

// repeat reads unit again and again.
type repeat struct {
	unit []byte
	off  int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := copy(p, r.unit[r.off:])
	r.off = (r.off + n) % len(r.unit)
	return n, nil
}

func TestTagPageIsHeld(t *testing.T) {
	t.Parallel()
	v := shopRules(t).Compile().Visitor(france, "", false)
	out := rewrite(t, v, string(tagPage(64<<10)))
	if strings.Count(out, `data-consentd-service="youtube"`) == 0 || strings.Count(out, `data-consentd-service="meta-pixel"`) == 0 {
		t.Fatal("the benchmark's page holds nothing")
	}
}

// memPages are BenchmarkRewriteMemory's page sizes in MB.
var memPages = []int{1, 50}
