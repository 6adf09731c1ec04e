package httpapi_test

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/consentd/consentd/core/analytics"
)

const (
	phoneUA   = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"
	desktopUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	botUA     = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

// TestAnalytics: events and decisions of 30 page views in two variants, two countries and two
// device classes; the report counts them exactly, per variant too, before and after a
// flush; bots' and bad batches count nothing.
func TestAnalytics(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id, pk := e.site()
	events, consent := "/api/v1/public/"+pk+"/events", "/api/v1/public/"+pk+"/consent"
	type want struct{ shown, decided, accepted, refused, prefs, left int64 }
	per := map[string]*want{"a": {}, "b": {}}
	for i := range 30 {
		variant := []string{"a", "b"}[i%2]
		ua, country := []string{phoneUA, desktopUA}[i%3%2], []string{"DE", "US"}[i%4/2]
		w := per[variant]
		evs := []string{`{"type":"shown"}`}
		w.shown++
		switch i % 5 {
		case 0, 1:
			evs = append(evs, `{"type":"decision","decision":"accept_all","ms":1200}`)
			r := e.raw("POST", consent, "", `{"categories":{"statistics":true,"marketing":true},"consentVersion":1,"action":"accept_all"}`,
				"X-Country", country, "User-Agent", ua)
			e.want(r, 201)
			w.decided++
			w.accepted++
		case 2:
			evs = append(evs, `{"type":"preferences_opened"}`, `{"type":"decision","decision":"reject_all","ms":800}`)
			e.want(e.raw("POST", consent, "", `{"categories":{},"consentVersion":1,"action":"reject_all"}`, "X-Country", country, "User-Agent", ua), 201)
			w.decided++
			w.refused++
			w.prefs++
		default:
			evs = append(evs, `{"type":"left"}`)
			w.left++
		}
		body := fmt.Sprintf(`{"consentVersion":1,"language":"de","variant":%q,"events":[%s]}`, variant, strings.Join(evs, ","))
		// sendBeacon's string bodies are text/plain.
		e.want(e.raw("POST", events, "", body, "X-Country", country, "User-Agent", ua, "Content-Type", "text/plain;charset=UTF-8"), 204)
	}
	// A crawler's batch is checked, answered and dropped.
	e.want(e.raw("POST", events, "", `{"consentVersion":1,"events":[{"type":"shown"}]}`, "User-Agent", botUA), 204)
	for _, bad := range []string{
		``, `{`, `[]`, `{"consentVersion":1,"events":[]}`, `{"consentVersion":0,"events":[{"type":"shown"}]}`,
		`{"consentVersion":2,"events":[{"type":"shown"}]}`, `{"consentVersion":1,"events":[{"type":"clicked"}]}`,
		`{"consentVersion":1,"events":[{"type":"decision","decision":"maybe"}]}`, `{"consentVersion":1,"events":[{"type":"shown","decision":"accept_all"}]}`,
		`{"consentVersion":1,"events":[{"type":"decision","decision":"accept_all","ms":-1}]}`, `{"consentVersion":1,"visitorId":"x","events":[{"type":"shown"}]}`,
		`{"consentVersion":1,"variant":"no spaces","events":[{"type":"shown"}]}`, `{"consentVersion":1,"language":"German!","events":[{"type":"shown"}]}`,
		`{"consentVersion":"1","events":[{"type":"shown"}]}`, `{"consentVersion":1,"events":[{"type":"shown"}]} {}`,
		`{"consentVersion":1,"events":[` + strings.Repeat(`{"type":"shown"},`, analytics.MaxEvents) + `{"type":"shown"}]}`,
	} {
		r := e.raw("POST", events, "", bad, "User-Agent", phoneUA, "Content-Type", "text/plain")
		if r.status != 400 {
			t.Errorf("batch %.60s: %d %s", bad, r.status, r.body)
			continue
		}
		e.want(r, 400, "validation_error")
	}
	e.want(e.raw("POST", "/api/v1/public/pk_nope/events", "", `{"consentVersion":1,"events":[{"type":"shown"}]}`), 404, "not_found")

	check := func(when string) {
		t.Helper()
		rep := e.want(e.do("GET", "/api/v1/sites/"+id+"/analytics", nil), 200).obj(t)
		by := rep["by"].(map[string]any)
		var total want
		for _, s := range by["variant"].([]any) {
			s := s.(map[string]any)
			w := per[s["value"].(string)]
			got := want{int64(s["shown"].(float64)), int64(s["decided"].(float64)), int64(s["acceptAll"].(float64)), int64(s["rejectAll"].(float64)),
				int64(s["preferencesOpened"].(float64)), int64(s["leftUndecided"].(float64))}
			// Decisions come from the consent path, which names no variant yet: they are counted under "".
			if s["value"] == "" {
				total.decided, total.accepted, total.refused = got.decided, got.accepted, got.refused
				continue
			}
			if got.shown != w.shown || got.prefs != w.prefs || got.left != w.left {
				t.Errorf("%s: variant %v: got %+v, want %+v", when, s["value"], got, *w)
			}
		}
		if d := per["a"].decided + per["b"].decided; total.decided != d || total.accepted != per["a"].accepted+per["b"].accepted ||
			total.refused != per["a"].refused+per["b"].refused {
			t.Errorf("%s: decisions %+v, want %d", when, total, d)
		}
		tot := rep["totals"].(map[string]any)
		if tot["shown"].(float64) != 30 || tot["decided"].(float64) != 18 || tot["consentRate"].(float64) != 0.6 ||
			tot["firstDecisions"].(map[string]any)["accept_all"].(float64) != 12 || tot["meanDecisionMs"].(float64) != (12*1200+6*800)/18.0 {
			t.Errorf("%s: totals %v", when, tot)
		}
		stats := tot["categories"].(map[string]any)["statistics"].(map[string]any)
		if stats["decisions"].(float64) != 18 || stats["granted"].(float64) != 12 {
			t.Errorf("%s: statistics category %v", when, stats)
		}
		var devices []string
		for _, s := range by["device"].([]any) {
			devices = append(devices, s.(map[string]any)["value"].(string))
		}
		if strings.Join(devices, ",") != "desktop,mobile" {
			t.Errorf("%s: devices %v (bots must be left out)", when, devices)
		}
		var countries []string
		for _, s := range by["country"].([]any) {
			countries = append(countries, s.(map[string]any)["value"].(string))
		}
		if strings.Join(countries, ",") != "DE,US" {
			t.Errorf("%s: countries %v", when, countries)
		}
	}
	check("before the flush")
	if err := e.m.Analytics.Agg.Flush(sysCtx); err != nil {
		t.Fatal(err)
	}
	if p := e.m.Analytics.Agg.Pending(id, analyticsEpoch, analyticsEnd); len(p) != 0 {
		t.Fatalf("%d rows pending after the flush", len(p))
	}
	check("after the flush")

	// Filters and the CSV export.
	mob := e.want(e.do("GET", "/api/v1/sites/"+id+"/analytics?device=mobile&variant=a&interval=hour", nil), 200).obj(t)
	if n := mob["totals"].(map[string]any)["shown"].(float64); n != 10 {
		t.Errorf("mobile, variant a: shown %v, want 10", n)
	}
	if n := len(mob["series"].([]any)); n < 720 || n > 722 {
		t.Errorf("30 days by hour: %d buckets", n)
	}
	bots := e.want(e.do("GET", "/api/v1/sites/"+id+"/analytics?device=bot", nil), 200).obj(t)
	if n := bots["totals"].(map[string]any)["shown"].(float64); n != 0 {
		t.Errorf("bots: shown %v, want 0 (dropped)", n)
	}
	r := e.want(e.do("GET", "/api/v1/sites/"+id+"/analytics/export", nil), 200)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("export content type %q", ct)
	}
	recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != strings.Join(analytics.CSVHeader(), ",") || len(recs) < 5 {
		t.Fatalf("export: %v", recs)
	}
	var shown int
	for _, rec := range recs[1:] {
		var n int
		fmt.Sscan(rec[7], &n)
		shown += n
	}
	if shown != 30 {
		t.Errorf("export: shown sums to %d, want 30", shown)
	}
	for _, q := range []string{"interval=minute", "device=phone", "from=2026-13-01", "country=de", "variant=a%20b", "from=2026-01-01&to=2025-01-01", "from=2020-01-01&to=2026-01-01"} {
		e.want(e.do("GET", "/api/v1/sites/"+id+"/analytics?"+q, nil), 400, "validation_error")
	}
	e.want(e.do("GET", "/api/v1/sites/"+id+"/analytics", nil, e.keyB), 404, "not_found")
}

var (
	analyticsEpoch = mustTime("2000-01-01T00:00:00Z")
	analyticsEnd   = mustTime("2100-01-01T00:00:00Z")
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}
