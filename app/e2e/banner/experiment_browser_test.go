package banner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/crawler/browser/browsertest"
)

// TestBrowserExperimentFiftyVisitors is #46's test of A/B tests: a site with a running
// experiment of two variants (the banner, and one with another headline and accept label),
// 50 visitors in fresh browsers deciding in a scripted mix (accept, accept, reject, leave,
// accept, reject, ...). Each visitor sees the variant the runtime drew (told apart by its
// headline); the analytics API reports, per variant, the banners shown, the decisions, the
// accepts and the refusals exactly; every consent record carries its visitor's variant.
func TestBrowserExperimentFiftyVisitors(t *testing.T) {
	t.Parallel()
	// Here, not only in each visitor's subtest: without Chromium every subtest would skip and
	// the tally below would fail instead of the test skipping.
	browsertest.Require(t)
	e := newEnv(t, "FR")
	var x struct {
		ID string `json:"id"`
	}
	e.post(t, "/sites/"+e.id+"/experiments", map[string]any{"name": "Headline", "metric": "accept_all_rate", "variants": []any{
		map[string]any{"key": "control", "weight": 50},
		map[string]any{"key": "plain", "weight": 50, "patch": map[string]any{"textOverrides": map[string]any{
			"headline": "Your privacy, your choice", "acceptLabel": "Allow all"}}},
	}}, 201, &x)
	e.post(t, "/sites/"+e.id+"/experiments/"+x.ID+"/start", nil, 200, nil)
	prefix := strings.ReplaceAll(x.ID, "-", "") + "_"
	url := e.page("experiment", "en", "", "<p>Shop</p>")

	type tally struct{ shown, decided, accepted, refused int64 }
	want := map[string]*tally{prefix + "control": {}, prefix + "plain": {}}
	mix := []string{"accept", "accept", "reject", "leave", "accept", "reject", "accept", "leave", "reject", "accept"}
	decided := 0
	for i := range 50 {
		// A visitor's browser closes when the visitor is done (a subtest's tab), so that no
		// more than one visitor's pages are open at a time.
		if !t.Run(fmt.Sprintf("visitor %d", i), func(t *testing.T) {
			ctx := tab(t)
			navigate(t, ctx, url)
			waitFor(t, ctx, bannerShown)
			waitFor(t, ctx, moreLoaded)
			var headline, accept string
			eval(t, ctx, `window.__cd('h2').textContent`, &headline)
			eval(t, ctx, `window.__cd('[data-action=accept]').textContent`, &accept)
			v := prefix + "control"
			switch {
			case headline == "Your privacy, your choice" && accept == "Allow all":
				v = prefix + "plain"
			case headline != "We value your privacy" || accept != "Accept all":
				t.Fatalf("visitor %d saw %q / %q: neither variant", i, headline, accept)
			}
			w := want[v]
			w.shown++
			switch act := mix[i%len(mix)]; act {
			case "leave":
				navigate(t, ctx, "about:blank")
			default:
				eval(t, ctx, `window.__cd('[data-action=`+act+`]').click()`, nil)
				w.decided++
				decided++
				if act == "accept" {
					w.accepted++
				} else {
					w.refused++
				}
				var kept string
				waitFor(t, ctx, `document.cookie.indexOf('consentd=') >= 0`)
				eval(t, ctx, `JSON.parse(decodeURIComponent(document.cookie.match(/consentd=([^;]*)/)[1])).x.variant`, &kept)
				if kept != v {
					t.Fatalf("visitor %d: the consent cookie keeps variant %q, shown %q", i, kept, v)
				}
				// The same visitor's next page keeps the variant: reopened, the banner says the same.
				navigate(t, ctx, url)
				eval(t, ctx, `window.consentd.getConsent().decided`, nil)
			}
		}) {
			t.FailNow()
		}
	}
	if want[prefix+"control"].shown == 0 || want[prefix+"plain"].shown == 0 {
		t.Fatalf("50 visitors drew one variant only: %+v %+v", want[prefix+"control"], want[prefix+"plain"])
	}

	// The records: one per decision, each with its visitor's variant.
	var pg struct {
		Records []struct {
			Action  string `json:"action"`
			Variant string `json:"variant"`
		} `json:"records"`
	}
	deadline := time.Now().Add(patience)
	for {
		mgmt(t, e.api, "GET", "/sites/"+e.id+"/consent-records?limit=100", nil, 200, &pg)
		if len(pg.Records) >= decided || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	byVariant := map[string]int64{}
	for _, r := range pg.Records {
		byVariant[r.Variant]++
	}
	for v, w := range want {
		if byVariant[v] != w.decided {
			t.Errorf("records of %s: %d, want %d (all: %v)", v, byVariant[v], w.decided, byVariant)
		}
	}
	if len(pg.Records) != decided {
		t.Errorf("%d records, want %d", len(pg.Records), decided)
	}

	// The analytics, per variant, exactly.
	type slice struct {
		Value     string `json:"value"`
		Shown     int64  `json:"shown"`
		Decided   int64  `json:"decided"`
		AcceptAll int64  `json:"acceptAll"`
		RejectAll int64  `json:"rejectAll"`
	}
	var got struct {
		By map[string][]slice `json:"by"`
	}
	deadline = time.Now().Add(patience)
	for {
		mgmt(t, e.api, "GET", "/sites/"+e.id+"/analytics", nil, 200, &got)
		ok := len(got.By["variant"]) == len(want)
		for _, s := range got.By["variant"] {
			w := want[s.Value]
			ok = ok && w != nil && s.Shown == w.shown && s.Decided == w.decided && s.AcceptAll == w.accepted && s.RejectAll == w.refused
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("analytics by variant %+v, want control %+v and plain %+v", got.By["variant"], *want[prefix+"control"], *want[prefix+"plain"])
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The results read the same counts.
	var res struct {
		Variants []struct {
			Key         string `json:"key"`
			Shown       int64  `json:"shown"`
			Conversions int64  `json:"conversions"`
		} `json:"variants"`
		SampleRatio struct {
			PValue float64 `json:"pValue"`
		} `json:"sampleRatio"`
	}
	mgmt(t, e.api, "GET", "/sites/"+e.id+"/experiments/"+x.ID+"/results", nil, 200, &res)
	for _, v := range res.Variants {
		if w := want[prefix+v.Key]; w == nil || v.Shown != w.shown || v.Conversions != w.accepted {
			t.Errorf("results of %s: %+v, want %+v", v.Key, v, w)
		}
	}
	_ = context.Background
}
