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
	"github.com/consentd/consentd/core/scan"
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
		res, err := c.Crawl(context.Background(), scan.CrawlRequest{URLs: []string{srv.URL}, Mode: mode})
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
			_, err := cr.Crawl(context.Background(), scan.CrawlRequest{URLs: []string{srv.URL}, Mode: mode, ProjectKey: "pk_x"})
			var ce *scan.CrawlError
			if !errors.As(err, &ce) || !strings.Contains(ce.Message, "CONSENTD_CHROMIUM_PATH") || core.IsTemporary(err) {
				t.Fatalf("%s without a browser: %v", mode, err)
			}
		}
	}
}
