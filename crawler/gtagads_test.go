package crawler

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/consentd/consentd/library/librarytest"
)

// TestGoogleAdsThroughGoogleTag: a gtag('config', 'AW-…') beside the Google tag loaded for
// Analytics, as Google ships the snippet, makes the tag load Google Ads: a detection with that
// ID in a deep scan, not a mention. An AW- ID only named in a comment beside the same tag stays
// a mention.
func TestGoogleAdsThroughGoogleTag(t *testing.T) {
	t.Parallel()
	b := ownBrowsers(t, 1)
	res, err := deepScanSite(t, filepath.Join("..", "testdata", "verify", "gtag-ads"), librarytest.Index(t), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ads *DetectedService
	for i := range res.Services {
		if res.Services[i].Slug == "google-ads" {
			ads = &res.Services[i]
		}
	}
	if ads == nil || fmt.Sprint(ads.TrackingIDs) != "[AW-123456789]" {
		dump(t, res)
		t.Fatalf("google-ads detected as %+v, want it with AW-123456789", ads)
	}
	var mentioned []string
	for _, m := range res.Mentions {
		if m.Slug == "google-ads" {
			mentioned = append(mentioned, m.TrackingIDs...)
		}
	}
	if fmt.Sprint(mentioned) != "[AW-555555555]" {
		t.Errorf("google-ads mentions %v, want the ID only named in a comment, AW-555555555", mentioned)
	}
}
