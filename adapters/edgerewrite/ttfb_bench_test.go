package edgerewrite_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// BenchmarkProxyTTFB measures the time to the first byte of a page's body directly from the
// origin and through consentd proxy, alternately in the same run, for a visitor from France
// whom tags are held (so the page is rewritten), and reports both medians and their difference
// (ttfb-direct-µs, ttfb-proxy-µs, ttfb-added-µs), and the proxy's for a page it passes
// unchanged (ttfb-proxy-unchanged-µs). The origin streams a 1 MB page full of tags
// in 32 KB chunks.
func BenchmarkProxyTTFB(b *testing.B) {
	p := tagPage(1 << 20)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		for off := 0; off < len(p); off += 32 << 10 {
			w.Write(p[off:min(off+32<<10, len(p))])
			w.(http.Flusher).Flush()
		}
	}))
	b.Cleanup(up.Close)
	api, _, _ := consentdServer(b)
	px := proxyTo(b, up.URL, api.URL)
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
	ttfb := func(u string, country ...string) time.Duration {
		req, _ := http.NewRequest("GET", u, nil)
		req.Header.Set("CF-IPCountry", append(country, "FR")[0])
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		one := make([]byte, 1)
		if _, err := io.ReadFull(res.Body, one); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return d
	}
	ttfb(px.URL + "/") // the rule set is fetched once, before the first page
	var direct, proxied, passed []time.Duration
	for b.Loop() {
		direct = append(direct, ttfb(up.URL+"/"))
		proxied = append(proxied, ttfb(px.URL+"/"))
		passed = append(passed, ttfb(px.URL+"/", "JP"))
	}
	median := func(d []time.Duration) time.Duration {
		slices.Sort(d)
		return d[len(d)/2]
	}
	md, mp := median(direct), median(proxied)
	b.ReportMetric(float64(md.Microseconds()), "ttfb-direct-µs")
	b.ReportMetric(float64(mp.Microseconds()), "ttfb-proxy-µs")
	b.ReportMetric(float64((mp - md).Microseconds()), "ttfb-added-µs")
	// A visitor of whom nothing is held (Japan: no banner) gets the page passed through: the
	// proxy's own hop, without the rewriter.
	b.ReportMetric(float64(median(passed).Microseconds()), "ttfb-proxy-unchanged-µs")
}
