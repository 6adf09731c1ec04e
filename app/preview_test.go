package app

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/consentd/consentd/core/banner"
)

// draft is one banner draft, as the console's editor sends it (form) and as a PATCH of the API
// says the same (body); bad names the field a refused draft gets wrong, "" for a valid one.
type draft struct {
	form url.Values
	body map[string]any
	bad  string
}

// bannerKeys are the banner's fields a draft sets, compared between the preview and the PATCH.
var bannerKeys = []string{"template", "position", "colors", "textOverrides", "textTranslations", "logoUrl", "privacyPolicyUrl",
	"cookiePolicyUrl", "defaultBehavior", "closeButtonBehavior", "cookieExpirationDays", "gcmExcludeVendor", "consentMode",
	"storefrontIntegration", "reopenButton", "reopenPosition", "reopenLabel", "cookieDomain", "regionRules"}

// newDraft generates draft i: every field of the editor set at random, and, for one draft in
// three, exactly one of them wrong.
func newDraft(rng *rand.Rand, i int) draft {
	pick := func(vs []string) string { return vs[rng.IntN(len(vs))] }
	d := draft{form: url.Values{}, body: map[string]any{}}
	set := func(form, key string, v any) {
		d.form.Set(form, fmt.Sprint(v))
		d.body[key] = v
	}
	set("template", "template", pick(banner.Templates()))
	set("position", "position", pick(banner.Positions()))
	set("defaultBehavior", "defaultBehavior", pick(banner.DefaultBehaviors()))
	set("closeButtonBehavior", "closeButtonBehavior", pick(banner.CloseButtonBehaviors()))
	set("reopenPosition", "reopenPosition", pick(banner.ReopenPositions()))
	days := 1 + rng.IntN(banner.MaxCookieExpiration)
	set("cookieExpirationDays", "cookieExpirationDays", days)
	check := func(form, key string) {
		on := rng.IntN(2) == 0
		if on {
			d.form.Set(form, "on")
		}
		d.body[key] = on
	}
	check("gcmExcludeVendor", "gcmExcludeVendor")
	check("storefrontIntegration", "storefrontIntegration")
	check("reopenButton", "reopenButton")
	colors := map[string]any{}
	for _, k := range banner.ColorKeys() {
		if rng.IntN(2) == 0 {
			c := fmt.Sprintf("#%06x", rng.IntN(1<<24))
			d.form.Set("color."+k, c)
			colors[k] = c
		}
	}
	d.body["colors"] = colors
	texts := map[string]any{}
	for _, k := range banner.TextKeys() {
		v := ""
		if rng.IntN(4) == 0 {
			v = fmt.Sprintf("Draft %d %s", i, k)
		}
		d.form.Set("text."+k, v)
		texts[k] = v
	}
	d.body["textOverrides"] = texts
	if rng.IntN(2) == 0 {
		d.form.Add("language", "fr")
		fr := map[string]any{}
		for _, k := range banner.TextKeys() {
			v := ""
			if k == "headline" || rng.IntN(6) == 0 {
				v = fmt.Sprintf("Brouillon %d %s", i, k)
			}
			d.form.Set("t.fr."+k, v)
			fr[k] = v
		}
		d.body["textTranslations"] = map[string]any{"fr": fr}
	}
	optional := func(form, key string, vs ...string) {
		v := pick(vs)
		d.form.Set(form, v)
		if v == "" {
			d.body[key] = nil
		} else {
			d.body[key] = v
		}
	}
	optional("logoUrl", "logoUrl", "", "https://shop.example/logo.png")
	optional("privacyPolicyUrl", "privacyPolicyUrl", "", "https://shop.example/privacy")
	optional("cookiePolicyUrl", "cookiePolicyUrl", "", "https://shop.example/cookies")
	optional("reopenLabel", "reopenLabel", "", "Privacy", "Cookie settings")
	optional("cookieDomain", "cookieDomain", "", "shop.example", ".shop.example")
	places := []string{"FR", "EU", "EEA", "GB", "CH", "US", "US-CA", "US-STATE-LAWS", "CA-QC", "JP", "*", "unknown"}
	rules := []any{}
	for j := range rng.IntN(4) {
		regions := []string{}
		for range 1 + rng.IntN(3) {
			regions = append(regions, pick(places))
		}
		behavior := pick(banner.DefaultBehaviors())
		gpc, dns, reject := rng.IntN(2) == 0, rng.IntN(2) == 0, rng.IntN(2) == 0
		n := strconv.Itoa(j)
		d.form.Add("rule", n)
		d.form.Set("rule."+n+".regions", strings.Join(regions, ", "))
		d.form.Set("rule."+n+".defaultBehavior", behavior)
		for k, on := range map[string]bool{"honorGpc": gpc, "doNotSellLink": dns, "rejectOnFirstLayer": reject} {
			if on {
				d.form.Set("rule."+n+"."+k, "on")
			}
		}
		rules = append(rules, map[string]any{"regions": regions, "defaultBehavior": behavior, "honorGpc": gpc, "doNotSellLink": dns, "rejectOnFirstLayer": reject})
	}
	d.body["regionRules"] = rules
	if i%3 != 0 {
		return d
	}
	// One field wrong, of those core checks and of those the API's schema checks too.
	switch i / 3 % 8 {
	case 0:
		set("template", "template", "sideways")
		d.bad = "template"
	case 1:
		set("cookieExpirationDays", "cookieExpirationDays", banner.MaxCookieExpiration+1)
		d.bad = "cookieExpirationDays"
	case 2:
		set("cookieDomain", "cookieDomain", "other.example")
		d.bad = "cookieDomain"
	case 3:
		set("reopenLabel", "reopenLabel", strings.Repeat("x", banner.MaxReopenLabel+1))
		d.bad = "reopenLabel"
	case 4:
		set("privacyPolicyUrl", "privacyPolicyUrl", "ftp://shop.example/privacy")
		d.bad = "privacyPolicyUrl"
	case 5, 6:
		n := strconv.Itoa(len(rules))
		d.form.Add("rule", n)
		d.form.Set("rule."+n+".regions", "FR, XX")
		d.form.Set("rule."+n+".defaultBehavior", banner.BehaviorOptIn)
		d.body["regionRules"] = append(rules, map[string]any{"regions": []string{"FR", "XX"}, "defaultBehavior": banner.BehaviorOptIn,
			"honorGpc": false, "doNotSellLink": false, "rejectOnFirstLayer": false})
		d.bad = "regionRules[" + n + "].regions[1]"
	case 7:
		set("reopenPosition", "reopenPosition", "middle")
		d.bad = "reopenPosition"
	}
	return d
}

// TestPreviewIsThePatch: the console's banner preview and a PATCH through the API give the
// same banner for 50 generated drafts; a draft the PATCH refuses the preview refuses too,
// naming the same field (and shows the saved banner instead).
func TestPreviewIsThePatch(t *testing.T) {
	t.Parallel()
	a, err := New(context.Background(), Config{DatabaseURL: "sqlite://" + filepath.Join(t.TempDir(), "p.db"), BootstrapAPIKey: testKey,
		Console: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)

	api := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, srv.URL+"/api/v1"+path, strings.NewReader(string(b)))
		req.Header.Set("Authorization", "Bearer "+testKey)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return res.StatusCode, out
	}
	code, site := api("POST", "/sites", map[string]any{"name": "Shop", "url": "https://shop.example"})
	if code != http.StatusCreated {
		t.Fatalf("create site: %d %v", code, site)
	}
	siteID := site["id"].(string)

	// The console, signed in with the same key.
	csrfField := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Jar: jar}
	page := func(method, path string, form url.Values) (int, string) {
		t.Helper()
		var res *http.Response
		var err error
		if method == http.MethodGet {
			res, err = browser.Get(srv.URL + path)
		} else {
			res, err = browser.PostForm(srv.URL+path, form)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	csrf := func(path string) string {
		t.Helper()
		_, body := page(http.MethodGet, path, nil)
		m := csrfField.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("no csrf field on %s", path)
		}
		return html.UnescapeString(m[1])
	}
	if code, body := page(http.MethodPost, "/sign-in", url.Values{"csrf": {csrf("/sign-in")}, "key": {testKey}, "next": {"/sites"}}); code != http.StatusOK || strings.Contains(body, "Sign in to consentd") {
		t.Fatalf("console sign-in: %d", code)
	}
	token := csrf("/sites/" + siteID + "/banner")

	draftJSON := regexp.MustCompile(`(?s)<script type="application/json" id="consentd-draft">(.*?)</script>`)
	refusedP := regexp.MustCompile(`<p id="preview-refused" hidden data-field="([^"]*)">([^<]*)</p>`)
	rng := rand.New(rand.NewPCG(41, 2026))
	refused := 0
	for i := range 50 {
		d := newDraft(rng, i)
		form := d.form
		form.Set("csrf", token)
		form.Set("previewPlace", "FR")
		code, body := page(http.MethodPost, "/sites/"+siteID+"/banner/preview", form)
		if code != http.StatusOK {
			t.Fatalf("draft %d: preview %d", i, code)
		}
		m := draftJSON.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("draft %d: no draft configuration in the preview", i)
		}
		var cfg struct{ Banner map[string]any }
		if err := json.Unmarshal([]byte(m[1]), &cfg); err != nil {
			t.Fatalf("draft %d: %v", i, err)
		}
		status, patched := api("PATCH", "/sites/"+siteID+"/banner", d.body)
		r := refusedP.FindStringSubmatch(body)
		if d.bad == "" {
			if status != http.StatusOK || r != nil {
				t.Errorf("draft %d: PATCH %d %v, preview refusal %q", i, status, patched, r)
				continue
			}
			if got, want := pickKeys(cfg.Banner), pickKeys(patched); !reflect.DeepEqual(got, want) {
				t.Errorf("draft %d: the preview and the PATCH differ\npreview %v\npatch   %v", i, got, want)
			}
			continue
		}
		refused++
		msg := fmt.Sprint(patched["error"].(map[string]any)["message"])
		if status != http.StatusBadRequest || r == nil {
			t.Errorf("draft %d (%s wrong): PATCH %d %s, preview refusal %q", i, d.bad, status, msg, r)
			continue
		}
		field, text := html.UnescapeString(r[1]), html.UnescapeString(r[2])
		if field != d.bad || !strings.HasPrefix(text, field+": ") || !strings.Contains(msg, field+": ") {
			t.Errorf("draft %d: the preview refused %q (%s), the PATCH said %q; want field %s", i, field, text, msg, d.bad)
		}
		// Refused, the preview shows the saved banner, which the PATCH left as it was (its
		// texts aside: the preview's copy carries one language's, merged).
		_, saved := api("GET", "/sites/"+siteID+"/banner", nil)
		for _, k := range []string{"template", "position", "defaultBehavior", "cookieExpirationDays", "reopenPosition", "reopenLabel", "cookieDomain", "regionRules"} {
			if !reflect.DeepEqual(cfg.Banner[k], saved[k]) {
				t.Errorf("draft %d: refused, the preview shows %s %v, the saved banner has %v", i, k, cfg.Banner[k], saved[k])
			}
		}
	}
	if refused != 17 {
		t.Errorf("%d refused drafts, want 17", refused)
	}
}

// pickKeys keeps the fields a draft sets, as JSON reads them.
func pickKeys(b map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range bannerKeys {
		out[k] = b[k]
	}
	return out
}
