package crawler

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/library/librarytest"
)

// BenchmarkDeep20 deep-scans a recorded 20-page site (every page runs a tag manager that
// injects analytics and a pixel, and lazy-loads an image below the fold) with one browser,
// as a worker with CONSENTD_SCAN_BROWSERS=1 does. It reports pages per second and the
// browser's peak memory: the sum over Chromium's processes of their proportional set size
// (shared pages split between the processes sharing them) and of their resident set size
// (shared pages counted in each). The browser is started before the timer.
//
//	go test -run XXX -bench Deep -benchtime 3x ./crawler/
func BenchmarkDeep20(b *testing.B) {
	pool := testBrowsers(b)
	dir := filepath.Join("..", "testdata", "bench", "deep-20")
	ix := librarytest.Index(b)
	if _, err := deepScanSite(b, dir, ix, pool, nil); err != nil { // start the browser
		b.Fatal(err)
	}
	var peakPSS, peakRSS int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(250 * time.Millisecond) // sampling costs CPU of its own: keep it rare
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			for _, pid := range pool.PIDs() {
				pss, rss := treeMemory(pid)
				peakPSS, peakRSS = max(peakPSS, pss), max(peakRSS, rss)
			}
		}
	}()
	pages := 0
	cpu0 := poolCPU(pool)
	var ru0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	for b.Loop() {
		res, err := deepScanSite(b, dir, ix, pool, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Pages) != 20 || len(res.PreConsent) != 3 {
			b.Fatalf("%d pages, pre-consent %+v", len(res.Pages), res.PreConsent)
		}
		pages += len(res.Pages)
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	var ru1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	goCPU := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
	b.ReportMetric((poolCPU(pool)-cpu0).Seconds()/float64(max(b.N, 1)), "chromium-cpu-s/scan")
	b.ReportMetric(goCPU.Seconds()/float64(max(b.N, 1)), "go-cpu-s/scan")
	b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(max(b.N, 1)), "s/scan")
	b.ReportMetric(float64(peakPSS)/(1<<20), "peak-pss-MB")
	b.ReportMetric(float64(peakRSS)/(1<<20), "peak-rss-MB")
}

// poolCPU is the CPU time the pool's browsers used so far: the user and system time of every
// live process of each browser, and of the children they reaped (renderers of closed
// contexts), which no live process counts twice.
func poolCPU(b *browser.Pool) time.Duration {
	var ticks int64
	for _, root := range b.PIDs() {
		for _, pid := range tree(root) {
			stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil {
				continue
			}
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			// After the comm: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
			for i := 11; i <= 14 && i < len(f); i++ {
				n, _ := strconv.ParseInt(f[i], 10, 64)
				ticks += n
			}
		}
	}
	return time.Duration(ticks) * time.Second / 100 // USER_HZ
}

// tree lists a process and its descendants.
func tree(root int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 {
			if ppid, err := strconv.Atoi(fields[1]); err == nil {
				children[ppid] = append(children[ppid], pid)
			}
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = append(queue[1:], children[pid]...)
		out = append(out, pid)
	}
	return out
}

// treeMemory sums Pss and Rss (bytes) over a process and its descendants.
func treeMemory(root int) (pss, rss int64) {
	for _, pid := range tree(root) {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "Pss:":
				pss += kb << 10
			case "Rss:":
				rss += kb << 10
			}
		}
	}
	return pss, rss
}
