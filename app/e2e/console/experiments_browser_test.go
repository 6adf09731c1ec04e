package console_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestConsoleExperiments: a site's A/B test in the console. The experiment (created with the
// API) is started from its page with the form (CSRF token; a post without it is refused);
// visitors see the variants (events and decisions through the public endpoints, 104 banners
// shown per variant, 40 and 80 decisions); the list and the results page show the variants'
// shown, conversions, rates, the difference with its confidence interval and the call (the
// challenger wins), as SVG charts, axe clean on a desktop and a phone, with no sideways
// scrolling and chart text of at least 11 px on the phone; then it is stopped and the winner
// promoted with the forms.
func TestConsoleExperiments(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	base := srv.base
	var site struct{ ID, ProjectKey string }
	apiDo(t, base, "POST", "/api/v1/sites", map[string]string{"name": "Field Notes", "url": "https://blog.example"}, &site)
	var x struct{ ID string }
	apiDo(t, base, "POST", "/api/v1/sites/"+site.ID+"/experiments", map[string]any{
		"name": "Shorter headline", "metric": "consent_rate", "regions": []string{"EU"}, "variants": []any{
			map[string]any{"key": "control", "name": "Current banner", "weight": 50},
			map[string]any{"key": "short", "name": "Short headline", "weight": 50, "patch": map[string]any{"textOverrides": map[string]string{"headline": "Cookies?"}}},
		}}, &x)

	ctx := tab(t)
	navigate(t, ctx, base+"/")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	list := base + "/sites/" + site.ID + "/experiments"
	page := list + "/" + x.ID
	navigate(t, ctx, page)
	mustContain(t, ctx, "Shorter headline", "Draft", "Not started")
	var status int
	eval(t, ctx, "fetch(location.pathname + '/start', {method: 'POST'}).then(function (r) { return r.status; })", &status)
	if status != http.StatusForbidden {
		t.Errorf("a start without the CSRF token: %d, want 403", status)
	}
	mustContain(t, ctx, "Draft")
	submit(t, ctx, "document.querySelector('form[action$=\"/start\"] button').click()")
	mustContain(t, ctx, "started", "Running")

	// Visitors: 104 banners shown per variant; 40 decisions under the control, 80 under the
	// challenger.
	for i, v := range []struct {
		key     string
		decided int
	}{{"control", 40}, {"short", 80}} {
		id := strings.ReplaceAll(x.ID, "-", "") + "_" + v.key // experiment.VariantID
		for b := 0; b < 104; b += 26 {
			evs := strings.TrimSuffix(strings.Repeat(`{"type":"shown"},`, 26), ",")
			postEvents(t, base, site.ProjectKey, `{"consentVersion":1,"variant":"`+id+`","events":[`+evs+`]}`)
		}
		for n := range v.decided {
			postVariantConsent(t, base, site.ProjectKey, fmt.Sprintf("visitor-%d-%03d-0123456789abcdef", i, n), id)
		}
	}
	navigate(t, ctx, list)
	mustContain(t, ctx, "Shorter headline", "Running", "Consent rate", "Current banner (50\u00a0%)")
	checkPage(t, ctx, base, "experiments-desktop")
	// The counts are aggregated in memory and flushed every second: wait for them.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		navigate(t, ctx, page)
		if strings.Contains(text(t, ctx), "does better") || time.Now().After(deadline) {
			break
		}
	}
	mustContain(t, ctx, "Short headline does better than the control", "Goal rate per variant", "Difference from the control",
		"38.5\u00a0%", "76.9\u00a0%", "+38.5\u00a0pt", "better (p = ")
	var charts int
	eval(t, ctx, "document.querySelectorAll('svg.chart[role=img]').length", &charts)
	if charts != 2 {
		t.Errorf("%d charts, want 2 (rates, differences)", charts)
	}
	if strings.Contains(text(t, ctx), "Sample ratio mismatch") {
		t.Error("a sample ratio mismatch is reported for an even split shown evenly")
	}
	checkPage(t, ctx, base, "experiment-desktop")

	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	for _, p := range []struct{ url, name string }{{list, "experiments-phone"}, {page, "experiment-phone"}} {
		navigate(t, ctx, p.url)
		checkPage(t, ctx, base, p.name)
		readableOnPhone(t, ctx, p.name)
	}

	// Stop, then promote the winner.
	submit(t, ctx, "document.querySelector('form[action$=\"/stop\"] button').click()")
	mustContain(t, ctx, "stopped", "Stopped")
	var selected string
	eval(t, ctx, "document.querySelector('#promote-key').value", &selected)
	if selected != "short" {
		t.Errorf("the promote form proposes %q, want the winner short", selected)
	}
	submit(t, ctx, "document.querySelector('form[action$=\"/promote\"] button').click()")
	mustContain(t, ctx, "“Short headline” is now the banner", "Promoted")
	var b struct {
		TextOverrides map[string]string `json:"textOverrides"`
	}
	apiDo(t, base, "GET", "/api/v1/sites/"+site.ID+"/banner", nil, &b)
	if b.TextOverrides["headline"] != "Cookies?" {
		t.Errorf("after the promotion the banner's headline is %q", b.TextOverrides["headline"])
	}
}

// readableOnPhone fails the test when the page scrolls sideways, when a table scrolls sideways
// inside its card, or when a chart's text renders smaller than 11 px.
func readableOnPhone(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var got struct {
		Page     bool     `json:"page"`
		Tables   []string `json:"tables"`
		Smallest float64  `json:"smallest"`
		Texts    int      `json:"texts"`
	}
	eval(t, ctx, `(function () {
  var out = {page: document.documentElement.scrollWidth > window.innerWidth + 1, tables: [], smallest: 99, texts: 0};
  document.querySelectorAll('.table-wrap').forEach(function (w) {
    if (w.scrollWidth > w.clientWidth + 1) out.tables.push((w.querySelector('th') || w).textContent.slice(0, 40));
  });
  document.querySelectorAll('svg.chart text').forEach(function (el) {
    var h = parseFloat(getComputedStyle(el).fontSize) * el.getScreenCTM().a;
    out.texts++;
    out.smallest = Math.min(out.smallest, h);
  });
  return out;
})()`, &got)
	if got.Page {
		t.Errorf("%s scrolls sideways on a phone", name)
	}
	if len(got.Tables) > 0 {
		t.Errorf("%s: tables scroll sideways on a phone: %q", name, got.Tables)
	}
	if got.Texts > 0 && got.Smallest < 11 {
		t.Errorf("%s: chart text renders at %.1f px on a phone, want at least 11", name, got.Smallest)
	}
	t.Logf("%s on a phone: %d chart texts, the smallest %.1f px", name, got.Texts, got.Smallest)
}

// visitorUA is a desktop browser's User-Agent.
const visitorUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"

func postEvents(t *testing.T, base, key, body string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+key+"/events", strings.NewReader(body))
	req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
	req.Header.Set("X-Country", "DE")
	req.Header.Set("User-Agent", visitorUA) // not a bot: the results leave bots out
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("events: %d", res.StatusCode)
	}
}

func postVariantConsent(t *testing.T, base, key, visitor, variant string) {
	t.Helper()
	b := fmt.Sprintf(`{"visitorId":%q,"categories":{"statistics":true,"marketing":false},"consentVersion":1,"action":"custom","variant":%q}`, visitor, variant)
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+key+"/consent", strings.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Country", "DE")
	req.Header.Set("User-Agent", visitorUA) // not a bot: the results leave bots out
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		raw, _ := io.ReadAll(res.Body)
		t.Fatalf("consent: %d %s", res.StatusCode, raw)
	}
}
