package sitecrawler

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/crawler"
	"github.com/consentd/consentd/crawler/browser"
	"github.com/consentd/consentd/library/librarytest"
)

func engine(t *testing.T) *crawler.Engine {
	t.Helper()
	ix := librarytest.Index(t)
	return crawler.New(ix)
}

// TestModes: auto runs static when no browser can be started, and says so; deep fails with the
// sentence that tells how to install Chromium; static never needs a browser.
func TestModes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><script async src="https://www.googletagmanager.com/gtag/js?id=G-MODES12345"></script></head></html>`)
	}))
	defer srv.Close()
	noBrowser := browser.NewPool(browser.Options{Path: "/nonexistent/chromium"})
	c := New(engine(t), crawler.Options{AllowPrivate: true}, noBrowser)
	for _, mode := range []string{core.ScanAuto, core.ScanStatic} {
		res, err := c.Crawl(context.Background(), core.CrawlRequest{URLs: []string{srv.URL}, Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if res.ModeUsed != core.ScanStatic || len(res.DetectedServices) != 1 || res.DetectedServices[0].TrackingIDs[0] != "G-MODES12345" {
			t.Fatalf("%s: %+v", mode, res)
		}
	}
	// A deep or verification scan without a browser fails with the same sentence, whether the
	// pool's browser is missing or there is no pool.
	for _, cr := range []*Crawler{c, New(engine(t), crawler.Options{AllowPrivate: true}, nil)} {
		for _, mode := range []string{core.ScanDeep, core.ScanVerify} {
			_, err := cr.Crawl(context.Background(), core.CrawlRequest{URLs: []string{srv.URL}, Mode: mode, ProjectKey: "pk_x"})
			var ce *core.CrawlError
			if !errors.As(err, &ce) || !strings.Contains(ce.Message, "CONSENTD_CHROMIUM_PATH") || core.IsTemporary(err) {
				t.Fatalf("%s without a browser: %v", mode, err)
			}
		}
	}
}

// TestVerificationMapping: the engine's verification maps onto core's field by field, with
// the project key null when none was found, and lists capped at core.MaxVerifiedItems.
func TestVerificationMapping(t *testing.T) {
	if Verification(nil) != nil {
		t.Fatal("nil verification mapped to one")
	}
	reqs := make([]crawler.VerifiedRequest, core.MaxVerifiedItems+3)
	for i := range reqs {
		reqs[i] = crawler.VerifiedRequest{URL: fmt.Sprintf("https://t.example/%d", i), Page: "https://s.example/", Service: "hotjar",
			Category: "statistics", Type: "Script", ThirdParty: true}
	}
	v := Verification(&crawler.Verification{Banner: crawler.BannerConsentd, ProjectKey: "pk_1", ConsentModeDefault: true, RejectOnFirstLayer: true,
		States: []crawler.VerifiedState{{State: crawler.StateRejectAll, Pages: []string{"https://s.example/"}, Requests: reqs,
			Cookies:      []crawler.VerifiedStorage{{Kind: crawler.StorageCookie, Name: "fr", Domain: "facebook.com", Service: "meta-pixel", ThirdParty: true}},
			Storage:      []crawler.VerifiedStorage{{Kind: crawler.StorageSession, Name: "_hjSession", Domain: "s.example"}},
			HeldUnmarked: []crawler.HeldTag{{URL: "https://t.example/h.js", Requested: true}}}}})
	st := v.States[0]
	if v.Banner != core.BannerConsentd || *v.ProjectKey != "pk_1" || !v.ConsentModeDefault || !v.RejectOnFirstLayer || v.ReopenButton ||
		st.State != core.StateRejectAll || len(st.Requests) != core.MaxVerifiedItems || st.Requests[0] != (core.VerifiedRequest{URL: "https://t.example/0",
		Page: "https://s.example/", Service: "hotjar", Category: "statistics", Type: "Script", ThirdParty: true}) ||
		st.Cookies[0].Kind != core.StorageCookie || st.Cookies[0].Domain != "facebook.com" || st.Storage[0].Kind != core.StorageSession ||
		!st.HeldUnmarked[0].Requested {
		t.Fatalf("mapped %+v", v)
	}
	if none := Verification(&crawler.Verification{Banner: crawler.BannerNone}); none.ProjectKey != nil || none.Banner != core.BannerNone || none.States == nil {
		t.Fatalf("no banner: %+v", none)
	}
}

// TestResultMentions: a deep scan's mentions reach the Scan apart from its detected services.
func TestResultMentions(t *testing.T) {
	out := Result(&crawler.Result{Mode: crawler.ModeDeep, Mentions: []crawler.Mention{
		{Slug: "hotjar", Name: "Hotjar", Category: "statistics", TrackingIDs: []string{"7654321"}, Pages: []string{"https://shop.example/old"}},
		{Slug: "google-analytics", Name: "Google Analytics", Category: "statistics", Detected: true, TrackingIDs: []string{"G-RETIRED9"}},
	}})
	if len(out.Mentions) != 2 || out.Mentions[0].Slug != "hotjar" || out.Mentions[0].TrackingIDs[0] != "7654321" ||
		!out.Mentions[1].Detected || out.Mentions[1].Pages == nil || len(out.DetectedServices) != 0 {
		t.Fatalf("mentions %+v, services %+v", out.Mentions, out.DetectedServices)
	}
}
