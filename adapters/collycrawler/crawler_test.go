package collycrawler

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
	"github.com/consentd/consentd/library"
)

func engine(t *testing.T) *crawler.Engine {
	t.Helper()
	cat, err := library.Load("")
	if err != nil {
		t.Fatal(err)
	}
	ix, err := library.NewIndex(cat.Services())
	if err != nil {
		t.Fatal(err)
	}
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
	noBrowser := crawler.NewBrowsers(crawler.BrowserOptions{Path: "/nonexistent/chromium"})
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
	_, err := c.Crawl(context.Background(), core.CrawlRequest{URLs: []string{srv.URL}, Mode: core.ScanDeep})
	var ce *core.CrawlError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "CONSENTD_CHROMIUM_PATH") || core.IsTemporary(err) {
		t.Fatalf("deep without a browser: %v", err)
	}
}
