package crawler

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/consentd/consentd/library/librarytest"
)

// TestFailedScriptListed: a third-party script the page asks for whose host does not resolve is
// listed as unrecognized with why, in the kernel's report too, whatever the scan mode.
func TestFailedScriptListed(t *testing.T) {
	t.Parallel()
	const src = "https://comments.talkbox-widget.example/embed.js"
	dir := filepath.Join("..", "testdata", "verify", "failed-script")
	ix := librarytest.Index(t)
	check := func(t *testing.T, res *Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, u := range res.Report().UnrecognizedScripts {
			got = append(got, u.Src+" | "+u.Error)
			if u.Src == src {
				if !strings.Contains(u.Error, "no such host") || u.Domain != "talkbox-widget.example" || len(u.Pages) != 1 {
					t.Errorf("listed as %+v, want its error (no such host), its domain and its page", u)
				}
				return
			}
		}
		t.Errorf("unrecognized scripts %q, want %s with its error", got, src)
	}
	t.Run("static", func(t *testing.T) {
		t.Parallel()
		res, err := scanSite(t, dir, ix, nil)
		check(t, res, err)
	})
	t.Run("browser", func(t *testing.T) {
		t.Parallel()
		b := ownBrowsers(t, 1)
		t.Run("deep", func(t *testing.T) {
			res, err := deepScanSite(t, dir, ix, b, nil)
			check(t, res, err)
		})
		t.Run("verify", func(t *testing.T) {
			res, err := verifySite(t, "failed-script", ix, b, VerifyOptions{})
			check(t, res, err)
		})
	})
}
