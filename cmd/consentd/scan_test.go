package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/httpapi/bannerjs"
	"github.com/consentd/consentd/crawler/browser/browsertest"
	"github.com/consentd/consentd/crawler/crawlertest"
)

// serveSite serves a recorded site over TLS, every host on one loopback port, with a
// certificate of a fresh test CA; it returns the connect-to rule that sends every host there
// and the CA file.
func serveSite(t *testing.T, dir string) (rule, caFile string) {
	_, rule, caFile = crawlertest.ServeTLS(t, dir, bannerjs.Handler())
	return rule, caFile
}

// runScan runs 'consentd scan' and returns its standard output.
func runScan(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(cli(t), append([]string{"scan"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("consentd scan %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// TestScanDeepRecordedSites: 'consentd scan --mode deep' (and --mode static) on recorded deep
// sites, served over TLS from loopback through --connect-to and --ca-cert, reports exactly what
// the site's expected file says. The engine's own corpus test (crawler.TestDeepRecordedSites)
// scores every recorded site; the command adds its flags, its browser set-up and its JSON
// output, so it runs on the sites that reach each of those: a single-page application's routes
// (spa-router: the deep mode's own pages), a tag manager that injects tags (gtm-inject: the
// library and the replay of a vendor's host) and consentd's own banner (consentd-banner-on: the
// runtime served beside the site). Each site is a parallel subtest: a deep scan is a browser of
// its own that spends most of its time waiting for pages to go quiet.
// cliDeepSites are the recorded deep sites the command is tested on (see above).
var cliDeepSites = []string{"spa-router", "gtm-inject", "consentd-banner-on"}

func TestScanDeepRecordedSites(t *testing.T) {
	browsertest.Require(t)
	t.Parallel()
	ran := 0
	for _, dir := range crawlertest.DeepSiteDirs(t, filepath.Join("..", "..", "testdata", "deep")) {
		if !slices.Contains(cliDeepSites, filepath.Base(dir)) {
			continue
		}
		ran++
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			cfg := crawlertest.LoadSite(t, dir)
			rule, caFile := serveSite(t, dir)
			want := crawlertest.LoadDeepExpectation(t, dir)
			wf := crawlertest.ExpectedFacts(want)
			site := crawlertest.SiteHost(cfg)
			args := []string{"--allow-private", "--connect-to", rule, "--ca-cert", caFile, "--chromium-path", browsertest.Path}
			got, pages := crawlertest.Facts(t, runScan(t, nil, append(append([]string{"--mode", "deep"}, args...), cfg.Start...)...), site)
			tp, fp, fn := crawlertest.Score(got, wf)
			sgot, _ := crawlertest.Facts(t, runScan(t, nil, append(append([]string{"--mode", "static"}, args...), cfg.Start...)...), site)
			stp, sfp, sfn := crawlertest.Score(sgot, wf)
			t.Logf("deep:   %s", crawlertest.Figures(tp, len(fp), len(fn)))
			t.Logf("static: %s", crawlertest.Figures(stp, len(sfp), len(sfn)))
			for _, f := range fp {
				t.Errorf("unexpected (precision): %s", f)
			}
			for _, f := range fn {
				t.Errorf("missed (recall): %s", f)
			}
			if want.Pages != 0 && pages != want.Pages {
				t.Errorf("%d pages, want %d", pages, want.Pages)
			}
		})
	}
	if ran != len(cliDeepSites) {
		t.Fatalf("%d of the sites %v found under testdata/deep", ran, cliDeepSites)
	}
}

// TestScanConnectToFromEnvironment: CONSENTD_SCAN_CONNECT_TO and CONSENTD_SCAN_CA_CERT point a
// static scan, tag manager container included, at a loopback copy of a site and its vendor.
func TestScanConnectToFromEnvironment(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "sites", "gtm-only")
	rule, caFile := serveSite(t, dir)
	out := runScan(t, []string{"CONSENTD_SCAN_CONNECT_TO=" + rule, "CONSENTD_SCAN_CA_CERT=" + caFile, "CONSENTD_SCAN_ALLOW_PRIVATE=true", "CONSENTD_SCAN_MODE=static"},
		"https://www.gtm-only.example/")
	got, _ := crawlertest.Facts(t, out, "www.gtm-only.example")
	for _, f := range []string{"id google-tag-manager GTM-K7XQ2MZ", "id google-analytics G-GTM4567890", "service hotjar"} {
		if !got[f] {
			t.Errorf("missing %s (the container was not read through the connect-to rule): %v", f, got)
		}
	}
	if !strings.Contains(string(out), `"mode": "static"`) {
		t.Errorf("CONSENTD_SCAN_MODE=static ran another mode:\n%s", out)
	}
}
