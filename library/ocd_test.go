package library

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ocdBuiltin is the catalog the fixture is imported against: the fixtures of testdata/extra
// (Google Tag Manager, Acme Insights) and a Clarity entry whose slug differs from its label, so
// the label match is exercised. It does not depend on the embedded catalog.
func ocdBuiltin(t *testing.T) *Catalog {
	t.Helper()
	extra, err := LoadFS(os.DirFS("testdata/extra"), ".")
	if err != nil {
		t.Fatal(err)
	}
	clarity := svc("ms-clarity", "Microsoft Clarity", "Microsoft", "Session recordings and heatmaps.", "_clck")
	c, err := FromServices(append(extra.Services(), clarity))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func importFixture(t *testing.T, builtin *Catalog) ([]*Service, []string) {
	t.Helper()
	f, err := os.Open("testdata/ocd-sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	svcs, warnings, err := ImportOCD(f, builtin)
	if err != nil {
		t.Fatal(err)
	}
	return svcs, warnings
}

func TestImportOCD(t *testing.T) {
	t.Parallel()
	builtin := ocdBuiltin(t)
	svcs, warnings := importFixture(t, builtin)

	got := map[string]*Service{}
	for _, s := range svcs {
		got[s.Slug] = s
	}
	wantSlugs := []string{"cloudflare", "cookiebot", "google-analytics", "google-tag-manager", "hotjar", "ms-clarity", "rekmob-com", "wordpress"}
	if !slices.Equal(slugs(svcs), wantSlugs) {
		t.Fatalf("slugs = %v, want %v", slugs(svcs), wantSlugs)
	}
	cookieNames := func(s *Service) []string {
		var out []string
		for _, c := range s.Cookies {
			out = append(out, c.Name+"/"+c.Match+"/"+c.Party+"/"+c.Duration)
		}
		return out
	}
	cases := []struct {
		slug, label, category, vendor, serviceURL, privacyURL string
		cookies                                               []string
	}{
		// "CloudFlare" and "Cloudflare" are one platform; "(3rd party)" domains make third-party cookies.
		{"cloudflare", "CloudFlare", CategoryEssential, "Cloudflare", "https://www.cloudflare.com/", "https://www.cloudflare.com/privacypolicy/",
			[]string{"__cf_bm/exact/third/30 minutes", "_cfuvid/exact/third/unknown"}},
		{"cookiebot", "Cookiebot", CategoryEssential, "Cookiebot", "https://www.cookiebot.com/", "https://www.cookiebot.com/en/cookie-declaration/",
			[]string{"CookieConsent/exact/first/1 year", "CookieConsentBulkTicket/exact/third/1 year"}},
		// Wildcard 1 is a prefix; the quoted description with commas stays whole.
		{"google-analytics", "Google Analytics", CategoryStatistics, "Google", "https://business.safety.google/", "https://business.safety.google/privacy/",
			[]string{"_ga/exact/first/2 years", "_ga_/prefix/first/2 years", "_gid/exact/first/24 hours"}},
		// Built-in by slug: enriched, keeping its own label, category and URLs.
		{"google-tag-manager", "Google Tag Manager (operator override)", CategoryStatistics, "Google LLC", "https://tagmanager.google.com/", "https://policies.google.com/privacy",
			[]string{"_dc_gtm_/prefix/first/1 minute", "cookiePreferences/exact/first/2 years", "td/exact/first/session"}},
		// Mixed categories take the strictest; the duplicate row (wildcard 2) is covered by the prefix.
		{"hotjar", "Hotjar", CategoryStatistics, "Hotjar", "https://www.hotjar.com/", "https://www.hotjar.com/legal/policies/privacy/",
			[]string{"_hjSession_/prefix/first/30 minutes", "_hjSessionUser_/prefix/first/1 year", "_hjIncludedInSessionSample_/prefix/first/30 minutes"}},
		// Built-in by label: only the cookie it lacks is added.
		{"ms-clarity", "Microsoft Clarity", CategoryStatistics, "Microsoft", "https://ms-clarity.example/", "https://ms-clarity.example/privacy",
			[]string{"_clck/exact/first/1 year", "_clsk/exact/first/1 day"}},
		// No portal: the platform name is a domain.
		{"rekmob-com", "rekmob.com", CategoryMarketing, "rekmob.com", "https://rekmob.com/", "https://rekmob.com/",
			[]string{"rek_uid/exact/first/3 months"}},
		// No portal, domain or controller: the vendor is the platform, the URLs the OCD project.
		{"wordpress", "Wordpress", CategoryEssential, "Wordpress", OCDSourceURL, OCDSourceURL,
			[]string{"wordpress_logged_in_/prefix/first/Session"}},
	}
	for _, tc := range cases {
		s := got[tc.slug]
		if s.Label != tc.label || s.Category != tc.category || s.Vendor != tc.vendor || s.ServiceURL != tc.serviceURL || s.PrivacyPolicyURL != tc.privacyURL {
			t.Errorf("%s = label %q category %q vendor %q urls %q %q,\nwant %q %q %q %q %q", tc.slug,
				s.Label, s.Category, s.Vendor, s.ServiceURL, s.PrivacyPolicyURL, tc.label, tc.category, tc.vendor, tc.serviceURL, tc.privacyURL)
		}
		if c := cookieNames(s); !slices.Equal(c, tc.cookies) {
			t.Errorf("%s cookies = %v, want %v", tc.slug, c, tc.cookies)
		}
	}
	if d := got["google-analytics"].Cookies[1].Description; d != "Used to persist session state, identify users, and measure visits" {
		t.Errorf("quoted description = %q", d)
	}
	if d := got["cloudflare"].Cookies[0].Description; d != `Bot management: reads "challenge" results` {
		t.Errorf("escaped quotes = %q", d)
	}
	if gtm, _ := builtin.Service("google-tag-manager"); len(gtm.Cookies) != 1 {
		t.Errorf("enriching modified the built-in service: %d cookies", len(gtm.Cookies))
	}

	wantWarnings := []string{
		`line 9: Salesforce: cookie "sfdc-stream" has category "Personalization"`,
		`line 17: cookie "XSRF-TOKEN" has no platform`,
		`line 21: Hotjar: wildcard match "2" is neither 0 nor 1`,
		`Acme Insights: built-in service acme-insights already has every cookie`,
		`Wordpress: no web address in the data`,
	}
	if len(warnings) != len(wantWarnings) {
		t.Fatalf("warnings = %q, want %d", warnings, len(wantWarnings))
	}
	for i, w := range wantWarnings {
		if !strings.HasPrefix(warnings[i], w) {
			t.Errorf("warning %d = %q, want prefix %q", i, warnings[i], w)
		}
	}
}

// TestImportOCDWritesLoadableFiles checks the importer's output against the validation rules,
// both alone and as an extension of the embedded catalog.
func TestImportOCDWritesLoadableFiles(t *testing.T) {
	t.Parallel()
	builtin, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	svcs, _ := importFixture(t, builtin)
	dir := t.TempDir()
	if err := WriteServices(dir, svcs); err != nil {
		t.Fatal(err)
	}
	if errs := Lint(dir); errs != nil {
		t.Fatalf("Lint = %v", errs)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range svcs {
		loaded, ok := c.Service(s.Slug)
		if !ok || len(loaded.Cookies) != len(s.Cookies) || loaded.ServiceURL != s.ServiceURL {
			t.Errorf("%s did not round-trip: %+v", s.Slug, loaded)
		}
	}
}

func TestWriteServicesShape(t *testing.T) {
	t.Parallel()
	s := validService()
	s.Scripts, s.Cookies = nil, nil
	s.Description = "Tracks <b>everything</b> & more."
	dir := t.TempDir()
	if err := WriteServices(dir, []*Service{s}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "acme-pixel.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"{\n  \"slug\": \"acme-pixel\",\n", `"scripts": []`, `"cookies": []`, `"logo": null`, `<b>everything</b> & more`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("entry file lacks %q:\n%s", want, data)
		}
	}
	if _, err := LoadFS(os.DirFS(dir), "."); err != nil {
		t.Error(err)
	}
}

func TestImportOCDBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, csv, want string }{
		{"empty", "", "reading header"},
		{"missing column", "ID,Platform,Category\n1,A,Analytics\n", `"Cookie / Data Key name"`},
		{"bad quoting", strings.Join(ocdColumns, ",") + "\nA,Analytics,\"x\"y,,,,,,0\n", "open cookie database"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, _, err := ImportOCD(strings.NewReader(tc.csv), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %s", err, tc.want)
			}
		})
	}
	// Columns in another order, a BOM, no builtin catalog.
	in := "\ufeffPlatform,Wildcard match,Category,Cookie / Data Key name,Domain,Description,Retention period,Data Controller,User Privacy & GDPR Rights Portals\n" +
		"Ünïcode Tracker!,1,Marketing,utk_,,,,,https://tracker.example/privacy\n"
	svcs, _, err := ImportOCD(strings.NewReader(in), nil)
	if err != nil || len(svcs) != 1 || svcs[0].Slug != "n-code-tracker" || svcs[0].Cookies[0].Match != MatchPrefix {
		t.Errorf("ImportOCD = %+v, %v", svcs, err)
	}
}

func TestWriteServicesRejectsBadSlug(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, s := range []*Service{nil, {Slug: "../escape"}, {Slug: ""}} {
		if err := WriteServices(dir, []*Service{s}); err == nil {
			t.Errorf("WriteServices(%v) accepted", s)
		}
	}
}

func FuzzImportOCD(f *testing.F) {
	data, err := os.ReadFile("testdata/ocd-sample.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add(strings.Join(ocdColumns, ",") + "\n\"a,b\",Analytics,x,,,,,,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		svcs, _, err := ImportOCD(strings.NewReader(in), nil)
		if err != nil {
			return
		}
		if _, err := FromServices(svcs); err != nil {
			t.Fatalf("imported services do not validate: %v", err)
		}
	})
}
