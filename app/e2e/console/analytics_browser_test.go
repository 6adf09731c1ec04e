package console_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestConsoleAnalytics: visitors meet a site's banner from three countries on phones and
// desktops (events and decisions through the public endpoints); the analytics page shows the
// funnel, the shares, the consent rate over time and the opt-in by country and device as SVG
// charts, passes axe-core on a desktop and a phone (where nothing scrolls sideways, tables
// included, and the charts' text reads at 11 px or more), and exports CSV.
func TestConsoleAnalytics(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	base := srv.base
	var site struct{ ID, ProjectKey string }
	apiDo(t, base, "POST", "/api/v1/sites", map[string]string{"name": "Field Notes", "url": "https://blog.example"}, &site)
	const phone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
	const desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
	for i := range 24 {
		country, ua := []string{"DE", "FR", "US"}[i%3], []string{phone, desktop}[i%2]
		evs := `{"type":"shown"}`
		if i%4 != 3 {
			action := []string{"accept_all", "reject_all", "custom"}[i%3]
			evs += fmt.Sprintf(`,{"type":"decision","decision":%q,"ms":%d}`, action, 800+100*i)
			cats := map[string]bool{"statistics": action != "reject_all", "marketing": action == "accept_all"}
			postConsentAs(t, base, site.ProjectKey, fmt.Sprintf("visitor-%d-0123456789abcdef", i), cats, action, country, ua)
		} else {
			evs += `,{"type":"left"}`
		}
		body := `{"consentVersion":1,"events":[` + evs + `]}`
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+site.ProjectKey+"/events", strings.NewReader(body))
		req.Header.Set("Content-Type", "text/plain;charset=UTF-8")
		req.Header.Set("X-Country", country)
		req.Header.Set("User-Agent", ua)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("events: %d", res.StatusCode)
		}
	}
	ctx := tab(t)
	navigate(t, ctx, base+"/")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	page := base + "/sites/" + site.ID + "/analytics"
	navigate(t, ctx, page)
	mustContain(t, ctx, "From shown to decided", "consent rate 75\u00a0%", "How visitors decide", "Consent rate over time",
		"Opt-in per category, by country", "Opt-in per category, by device", "Mobile", "Desktop")
	shownCharts := func(where string) {
		t.Helper()
		// The consent rate is drawn twice, wide and narrow: the stylesheet shows one.
		var charts int
		eval(t, ctx, "Array.from(document.querySelectorAll('svg.chart[role=img]')).filter(function (s) { return s.getBoundingClientRect().width > 0; }).length", &charts)
		if charts != 3 {
			t.Errorf("%s: %d charts shown, want 3 (funnel, shares, rate)", where, charts)
		}
	}
	shownCharts("desktop")
	// On a desktop the consent rate takes its card's width (it once took half of it).
	var share float64
	eval(t, ctx, `(function () { var s = document.querySelector('svg.chart.line.wide'), c = s.closest('figure');
	  var cs = getComputedStyle(c); return s.getBoundingClientRect().width / (c.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)); })()`, &share)
	if share < 0.95 {
		t.Errorf("desktop: the consent rate's chart takes %.0f %% of its card's width, want all of it", share*100)
	}
	checkPage(t, ctx, base, "analytics-desktop")
	run(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	navigate(t, ctx, page)
	shownCharts("phone")
	eval(t, ctx, "document.querySelectorAll('details').forEach(function (d) { d.open = true; })", nil)
	checkPage(t, ctx, base, "analytics-phone")
	readableOnPhone(t, ctx, "analytics-phone")
	// A filter, then the export of the same counters.
	navigate(t, ctx, page+"?device=mobile")
	mustContain(t, ctx, "From shown to decided")
	var csv string
	eval(t, ctx, "fetch('/sites/"+site.ID+"/analytics?format=csv').then(function (r) { return r.text(); })", &csv)
	if !strings.HasPrefix(csv, "hour,country,regionRule,device") || strings.Count(csv, "\n") < 4 {
		t.Errorf("export: %.200s", csv)
	}
	navigate(t, ctx, page+"?from=2026-13-40")
	mustContain(t, ctx, "enter a date as YYYY-MM-DD")
}

func postConsentAs(t *testing.T, base, key, visitor string, cats map[string]bool, action, country, ua string) {
	t.Helper()
	b := fmt.Sprintf(`{"visitorId":%q,"categories":{"statistics":%v,"marketing":%v},"consentVersion":1,"action":%q}`, visitor, cats["statistics"], cats["marketing"], action)
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+key+"/consent", bytes.NewReader([]byte(b)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Country", country)
	req.Header.Set("User-Agent", ua)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("consent: %d", res.StatusCode)
	}
}
