package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// TestConsoleRegionalRules: a site owner applies a preset of regional rules with one click,
// adds a rule with an unknown region code and is told which rule and code in place, removes and
// reorders rules, saves them, and previews the banner as a visitor from California and from
// France: the preview says which rule applies and shows what the runtime does with it.
func TestConsoleRegionalRules(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	base := srv.base
	var site struct{ ID string }
	apiDo(t, base, "POST", "/api/v1/sites", map[string]string{"name": "Field Notes", "url": "https://blog.example"}, &site)
	ctx := tab(t)
	navigate(t, ctx, base+"/")
	fill(t, ctx, map[string]string{"#key": apiKey})
	submit(t, ctx, "document.querySelector('form[action=\"/sign-in\"] button').click()")
	waitFor(t, ctx, "location.pathname === '/sites'")
	page := base + "/sites/" + site.ID + "/banner"
	navigate(t, ctx, page)
	mustContain(t, ctx, "Regional rules", "No regional rule")

	rules := func() []string {
		t.Helper()
		var out []string
		eval(t, ctx, "Array.from(document.querySelectorAll('input[name$=\".regions\"]')).map(function (i) { return i.value; })", &out)
		return out
	}
	preset := banner.RegionPresets()[0]
	submit(t, ctx, "document.querySelector('button[value=\"preset."+preset.ID+"\"]').click()")
	mustContain(t, ctx, "The preset “"+preset.Name+"” replaced the draft's rules: save the banner to apply it.")
	got := rules()
	if len(got) != len(preset.RegionRules) {
		t.Fatalf("after the preset: rules %q, want %d", got, len(preset.RegionRules))
	}
	for i, r := range preset.RegionRules {
		if got[i] != strings.Join(r.Regions, ", ") {
			t.Fatalf("rule %d: %q, want %v", i+1, got[i], r.Regions)
		}
	}

	// A new rule with an unknown code: not saved, the error beside the rule's regions.
	submit(t, ctx, "document.querySelector('button[value=\"add\"]').click()")
	n := len(preset.RegionRules)
	fill(t, ctx, map[string]string{"#rule-" + itoa(n) + "-regions": "FR, XX"})
	submit(t, ctx, "document.querySelector('#save-banner').click()")
	mustContain(t, ctx, "Not saved:", `Rule `+itoa(n+1)+`, region 2: unknown region code "XX"`)
	var invalid string
	eval(t, ctx, "document.querySelector('#rule-"+itoa(n)+"-regions').getAttribute('aria-invalid') + ' ' + document.querySelector('#rule-"+itoa(n)+"-error').textContent", &invalid)
	if !strings.HasPrefix(invalid, "true Rule "+itoa(n+1)+", region 2") {
		t.Fatalf("the rule's field: %q", invalid)
	}
	if len(rules()) != n+1 {
		t.Fatalf("the draft lost rules: %q", rules())
	}
	waitFor(t, ctx, "(document.querySelector('#preview').getAttribute('data-visitor') || '').indexOf('The draft\\'s regional rules are not valid (Rule "+itoa(n+1)+", region 2: unknown region code') > 0")
	checkPage(t, ctx, base, "30-regional-rules-error")

	// Remove it; move the US rule up and back down.
	submit(t, ctx, "document.querySelector('button[value=\"remove."+itoa(n)+"\"]').click()")
	mustContain(t, ctx, "Rule "+itoa(n+1)+" removed from the draft")
	submit(t, ctx, "document.querySelector('button[value=\"up.1\"]').click()")
	if got := rules(); got[0] != strings.Join(preset.RegionRules[1].Regions, ", ") {
		t.Fatalf("after moving rule 2 up: %q", got)
	}
	var disabled bool
	eval(t, ctx, "document.querySelector('button[value=\"up.0\"]').disabled && document.querySelector('button[value=\"down."+itoa(n-1)+"\"]').disabled", &disabled)
	if !disabled {
		t.Fatal("the first rule can move up or the last down")
	}
	submit(t, ctx, "document.querySelector('button[value=\"down.0\"]').click()")
	// Enter in a rule's field saves the banner, as in every other field.
	eval(t, ctx, "window.__stale = true", nil)
	eval(t, ctx, "document.querySelector('#rule-0-regions').focus()", nil)
	run(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitFor(t, ctx, "!window.__stale && document.readyState === 'complete'")
	mustContain(t, ctx, "Banner saved")
	var saved struct{ RegionRules []banner.RegionRule }
	apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &saved)
	if len(saved.RegionRules) != n || saved.RegionRules[1].Regions[0] != core.RegionUSStateLaws || !saved.RegionRules[1].DoNotSellLink {
		t.Fatalf("saved rules: %+v", saved.RegionRules)
	}
	// Each rule's honorGpc, doNotSellLink and rejectOnFirstLayer are the owner's to set: off on
	// the US rule and the first, saved as such, then back on.
	toggles := func(on bool) {
		t.Helper()
		eval(t, ctx, `(function (on) {
  ['rule.1.honorGpc', 'rule.1.doNotSellLink', 'rule.0.rejectOnFirstLayer'].forEach(function (n) {
    var c = document.querySelector('input[type=checkbox][name="' + n + '"]');
    if (c.checked !== on) c.click();
  });
})(`+strconv.FormatBool(on)+`)`, nil)
		submit(t, ctx, "document.querySelector('#save-banner').click()")
		mustContain(t, ctx, "Banner saved")
		apiGet(t, base, "/api/v1/sites/"+site.ID+"/banner", &saved)
		if r0, r1 := saved.RegionRules[0], saved.RegionRules[1]; r1.HonorGPC != on || r1.DoNotSellLink != on || r0.RejectOnFirstLayer != on || !r1.RejectOnFirstLayer || !r0.HonorGPC {
			t.Fatalf("after setting the rules' options to %v: %+v", on, saved.RegionRules)
		}
		var checked []bool
		eval(t, ctx, `['rule.1.honorGpc', 'rule.1.doNotSellLink', 'rule.0.rejectOnFirstLayer'].map(function (n) { return document.querySelector('input[name="' + n + '"]').checked; })`, &checked)
		if len(checked) != 3 || checked[0] != on || checked[1] != on || checked[2] != on {
			t.Fatalf("the saved form shows %v, want all %v", checked, on)
		}
	}
	toggles(false)
	run(t, ctx, chromedp.EmulateViewport(1280, 1000))
	eval(t, ctx, "document.querySelector('#rule-1').scrollIntoView()", nil)
	checkPage(t, ctx, base, "31-regional-rules-options-off")
	toggles(true)
	eval(t, ctx, "document.querySelector('#regional-rules').scrollIntoView()", nil)
	checkPage(t, ctx, base, "31-regional-rules-editor")

	// Preview as a Californian, then as a French visitor.
	for _, c := range []struct{ place, name, want string }{
		{"US-CA", "california", "A visitor from California (US-CA): rule 2 (opt-out), Global Privacy Control honoured, a Do Not Sell or Share control; recorded as jurisdiction ccpa."},
		{"FR", "france", "A visitor from France: rule 1 (opt-in), Global Privacy Control honoured; recorded as jurisdiction gdpr."},
		{"JP", "japan", "A visitor from Japan: rule 4 (no banner)"},
		{"", "unknown", "A visitor whose location is unknown: rule 3 (opt-in)"},
	} {
		fill(t, ctx, map[string]string{"#previewPlace": c.place})
		waitFor(t, ctx, "(document.querySelector('#preview').getAttribute('data-visitor') || '').indexOf("+jsString(c.want)+") === 0")
		mustContain(t, ctx, c.want)
		if c.place == "JP" {
			mustContain(t, ctx, "the banner is not shown")
		}
		if c.place == "US-CA" || c.place == "FR" {
			eval(t, ctx, "document.querySelector('#preview').scrollIntoView({block: 'center'})", nil)
			screenshot(t, ctx, "32-preview-"+c.name)
		}
	}

	// Statistics by place: two Californians, a French visitor and one whose place is unknown.
	for i, from := range [][2]string{{"US", "CA"}, {"US", "US-CA"}, {"FR", ""}, {"", ""}} {
		postConsentFrom(t, base, projectKeyOf(t, base, site.ID), "v"+itoa(i), from[0], from[1])
	}
	navigate(t, ctx, base+"/sites/"+site.ID+"/consents")
	var table string
	eval(t, ctx, "Array.from(document.querySelectorAll('#places-table tbody tr')).map(function (r) { return r.cells[0].textContent + ' ' + r.cells[1].textContent; }).join('; ')", &table)
	if want := "California (US-CA) 2; Unknown location 1; France (FR) 1"; table != want {
		t.Fatalf("decisions by place: %q, want %q", table, want)
	}
	eval(t, ctx, "document.querySelector('#place-h').scrollIntoView()", nil)
	checkPage(t, ctx, base, "33-statistics-by-place")
}

func projectKeyOf(t *testing.T, base, siteID string) string {
	t.Helper()
	var s struct{ ProjectKey string }
	apiGet(t, base, "/api/v1/sites/"+siteID, &s)
	return s.ProjectKey
}

// postConsentFrom records a decision of a visitor at a place given by the CDN headers.
func postConsentFrom(t *testing.T, base, key, visitor, country, region string) {
	t.Helper()
	version := publicConfig(t, base, key).Banner.ConsentVersion
	b, _ := json.Marshal(map[string]any{"visitorId": visitor, "categories": map[string]bool{"statistics": true}, "consentVersion": version, "action": "custom"})
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/public/"+key+"/consent", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Country", country)
	req.Header.Set("X-Region", region)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("consent: %d %s", res.StatusCode, body)
	}
}
