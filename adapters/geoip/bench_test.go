package geoip_test

import (
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
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

// BenchmarkOpenEmbeddedMemory reports what the embedded database costs in memory once open and
// after lookups spread over the whole address space (#26: under 30 MB): heap-B, the live heap it
// adds, and rss-B, what the process's resident set grows by. The database's bytes are the
// binary's read-only data, mapped from the executable and never copied to the heap: lookups
// bring in the pages they touch, at most its 7.8 MB.
func BenchmarkOpenEmbeddedMemory(b *testing.B) {
	var before, after runtime.MemStats
	var heapGrowth, rssGrowth int64
	for b.Loop() {
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&before)
		rssBefore := rss(b)
		r, err := geoip.OpenEmbedded()
		if err != nil {
			b.Fatal(err)
		}
		// 2^20 addresses evenly spread over IPv4 and as many over IPv6's global unicast range.
		for i := range uint32(1 << 20) {
			v4 := netip.AddrFrom4([4]byte{byte(i >> 12), byte(i >> 4), byte(i << 4), 1})
			var a16 [16]byte
			a16[0], a16[1], a16[2], a16[3] = 0x20|byte(i>>16)&0x1f, byte(i>>8), byte(i), 0x01
			for _, a := range []netip.Addr{v4, netip.AddrFrom16(a16)} {
				if _, err := r.Locate(a); err != nil {
					b.Fatal(err)
				}
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		// The first round brings the pages in; later rounds find them resident: keep the most.
		rssGrowth = max(rssGrowth, rss(b)-rssBefore)
		heapGrowth = max(heapGrowth, int64(after.HeapAlloc)-int64(before.HeapAlloc))
		runtime.KeepAlive(r)
	}
	b.ReportMetric(float64(heapGrowth), "heap-B")
	b.ReportMetric(float64(rssGrowth), "rss-B")
}

// rss is the process's resident set size, from /proc (Linux); the benchmark is skipped
// elsewhere.
func rss(b *testing.B) int64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status:", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Skip("no VmRSS")
	return 0
}
