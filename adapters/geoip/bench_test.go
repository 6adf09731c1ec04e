package geoip_test

import (
	"net/netip"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/consentd/consentd/adapters/geoip"
)

// benchAddrs are looked up in turn, so that a lookup is not always the same path.
var benchAddrs = []netip.Addr{
	netip.MustParseAddr("80.67.169.12"), netip.MustParseAddr("130.149.7.201"),
	netip.MustParseAddr("193.0.6.139"), netip.MustParseAddr("81.2.69.142"),
	netip.MustParseAddr("8.8.8.8"), netip.MustParseAddr("202.12.27.33"),
	netip.MustParseAddr("2001:67c:2e8::1"), netip.MustParseAddr("2001:4860:4860::8888"),
}

// BenchmarkLocateEmbedded is the cost of one lookup in the embedded country database (#26:
// under 2 µs).
func BenchmarkLocateEmbedded(b *testing.B) {
	r, err := geoip.OpenEmbedded()
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if _, err := r.Locate(benchAddrs[i%len(benchAddrs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkLocateCity is the cost of one lookup in a City-layout database, whose records have
// more to skip.
func BenchmarkLocateCity(b *testing.B) {
	r, err := geoip.Open(writeCity(b))
	if err != nil {
		b.Fatal(err)
	}
	addr := netip.MustParseAddr("8.8.8.8")
	for b.Loop() {
		if _, err := r.Locate(addr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenEmbeddedMemory reports the heap the embedded database costs once open and
// after a lookup of every benchmark address (#26: under 30 MB). The database's bytes are the
// binary's own read-only data, mapped from the executable, not heap: at most its 7.8 MB add to
// the resident set as lookups touch its pages.
func BenchmarkOpenEmbeddedMemory(b *testing.B) {
	var before, after runtime.MemStats
	for b.Loop() {
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&before)
		r, err := geoip.OpenEmbedded()
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range benchAddrs {
			if _, err := r.Locate(a); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(r)
	}
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "heap-B")
}
