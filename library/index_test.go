package library

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

func indexFixture(t testing.TB) *Index {
	t.Helper()
	svcs := []*Service{
		{Slug: "google-analytics", Label: "Google Analytics", Category: CategoryStatistics,
			Scripts:     []string{"www.googletagmanager.com/gtag/js?id=G-", "www.google-analytics.com/analytics.js"},
			Resources:   []string{"*.google-analytics.com/g/collect"},
			TrackingIDs: []TrackingID{{Pattern: `\b(G-[A-Z0-9]{6,12})\b`}},
			Cookies:     []Cookie{{Name: "_ga", Match: MatchExact}, {Name: "_ga_", Match: MatchPrefix}}},
		{Slug: "google-ads", Label: "Google Ads", Category: CategoryMarketing,
			Scripts:     []string{"www.googletagmanager.com/gtag/js?id=AW-"},
			TrackingIDs: []TrackingID{{Pattern: `\b(AW-\d{6,12})\b`}},
			Cookies:     []Cookie{{Name: "_gcl_au", Match: MatchExact}}},
		{Slug: "google-tag-manager", Label: "Google Tag Manager", Category: CategoryEssential,
			Scripts:     []string{"www.googletagmanager.com/gtm.js", "www.googletagmanager.com"},
			TrackingIDs: []TrackingID{{Pattern: `\b(GTM-[A-Z0-9]{4,9})\b`}}},
		{Slug: "hotjar", Label: "Hotjar", Category: CategoryStatistics,
			Scripts:     []string{"*.hotjar.com"},
			TrackingIDs: []TrackingID{{Pattern: `(?i)hjid\s*:\s*(\d{5,10})`}},
			Cookies:     []Cookie{{Name: `^_hj\w+$`, Match: MatchRegex}}},
		{Slug: "meta-pixel", Label: "Meta Pixel", Category: CategoryMarketing,
			Scripts:     []string{"connect.facebook.net/*/fbevents.js"},
			Resources:   []string{"www.facebook.com/tr"},
			TrackingIDs: []TrackingID{{Pattern: `fbq\(\s*['"]init['"]\s*,\s*['"](\d{15,16})['"]`}}},
		{Slug: "matomo", Label: "Matomo", Category: CategoryStatistics,
			TrackingIDs: []TrackingID{{Pattern: `(\d+)\s*\]\s*\)\s*;\s*//matomo`}}},
	}
	ix, err := NewIndex(svcs)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestIndexMatchURL(t *testing.T) {
	t.Parallel()
	ix := indexFixture(t)
	cases := []struct {
		url, slug, pattern string
	}{
		{"https://www.googletagmanager.com/gtag/js?id=G-ABC123", "google-analytics", "www.googletagmanager.com/gtag/js?id=G-"},
		{"//www.googletagmanager.com/gtag/js?l=x&id=AW-123456", "google-ads", "www.googletagmanager.com/gtag/js?id=AW-"},
		{"https://www.googletagmanager.com/gtag/js?id=AW%2D123456", "google-ads", "www.googletagmanager.com/gtag/js?id=AW-"},
		{"https://www.googletagmanager.com/gtag/js?id=DC-1", "google-tag-manager", "www.googletagmanager.com"},
		{"https://WWW.GoogleTagManager.com:443/gtm.js?id=GTM-AB12", "google-tag-manager", "www.googletagmanager.com/gtm.js"},
		{"https://static.hotjar.com/c/hotjar-123.js?sv=6", "hotjar", "*.hotjar.com"},
		{"https://hotjar.com/", "hotjar", "*.hotjar.com"},
		{"http://user@a.b.hotjar.com./x", "hotjar", "*.hotjar.com"},
		{"https://connect.facebook.net/en_US/fbevents.js", "meta-pixel", "connect.facebook.net/*/fbevents.js"},
		{"https://www.facebook.com/tr?id=1&ev=PageView", "meta-pixel", "www.facebook.com/tr"},
		{"https://region1.google-analytics.com/g/collect?v=2", "google-analytics", "*.google-analytics.com/g/collect"},
		{"www.google-analytics.com/analytics.js#frag", "google-analytics", "www.google-analytics.com/analytics.js"},
		// No match.
		{"https://connect.facebook.net/en_US/sdk.js", "", ""},
		{"https://nothotjar.com/x.js", "", ""},
		{"https://www.google-analytics.com/other.js", "", ""},
		{"https://example.com/www.googletagmanager.com/gtm.js", "", ""},
		{"", "", ""},
		{"data:text/javascript,alert(1)", "", ""},
		{"/relative/path.js", "", ""},
	}
	for _, c := range cases {
		m, ok := ix.MatchURL(c.url)
		got, pat := "", ""
		if ok {
			got, pat = m.Service.Slug, m.Pattern
		}
		if got != c.slug || pat != c.pattern {
			t.Errorf("MatchURL(%q) = %q %q, want %q %q", c.url, got, pat, c.slug, c.pattern)
		}
	}
}

// TestIndexMatchURLAgreesWithPattern checks the index against the reference matcher of
// pattern.go on every pattern × URL pair: the index must find a match exactly when some pattern
// matches, and the one it returns must match.
func TestIndexMatchURLAgreesWithPattern(t *testing.T) {
	t.Parallel()
	ix := indexFixture(t)
	urls := []string{
		"https://www.googletagmanager.com/gtag/js?id=G-1", "https://www.googletagmanager.com/",
		"https://x.hotjar.com/a", "https://connect.facebook.net/a/b/fbevents.js",
		"https://connect.facebook.net/de_DE/fbevents.js?v=1", "https://www.facebook.com/tracking",
		"https://google-analytics.com/g/collect", "https://www.google-analytics.com/g/collect/x",
		"https://www.googletagmanager.com/gtag/js?id=g-lower", "https://example.org/",
	}
	for _, u := range urls {
		checkAgainstPatterns(t, ix, u)
	}
}

func checkAgainstPatterns(t testing.TB, ix *Index, u string) {
	t.Helper()
	any := false
	for _, p := range ix.pats {
		if p.p.MatchString(u) {
			any = true
		}
	}
	m, ok := ix.MatchURL(u)
	if ok != any {
		t.Fatalf("MatchURL(%q) ok=%v, reference matcher says %v", u, ok, any)
	}
	if ok {
		p, _ := ParsePattern(m.Pattern)
		if !p.MatchString(u) {
			t.Fatalf("MatchURL(%q) returned pattern %q that does not match", u, m.Pattern)
		}
	}
}

func FuzzIndexMatchURL(f *testing.F) {
	ix := indexFixture(f)
	for _, s := range []string{"https://www.googletagmanager.com/gtag/js?id=G-1", "//a.hotjar.com",
		"connect.facebook.net/x/fbevents.js", "https://u:p@www.facebook.com:8080/tr?x#y", "%zz", "http://[::1]:80/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		pu, err := ParseLooseURL(u)
		if err != nil || len(pu.Hostname()) > 253 {
			ix.MatchURL(u) // must not panic; a host longer than DNS allows is never fetched, and the index does not match it
			return
		}
		if strings.ContainsAny(u, " \t\r\n\\%;") || strings.Count(u, "@") > 0 || strings.Count(u, "?") > 1 {
			ix.MatchURL(u) // forms where net/url and the fast splitter may legitimately differ
			return
		}
		checkAgainstPatterns(t, ix, u)
	})
}

func TestIndexFindTrackingIDs(t *testing.T) {
	t.Parallel()
	ix := indexFixture(t)
	text := `gtag('config', 'G-ABC123XYZ9'); gtag('config','AW-1234567');
	(function(w,d,s,l,i){})(window,document,'script','dataLayer','GTM-K9X2ZQ');
	fbq('init', '123456789012345'); h._hjSettings={HJID:3141592,hjsv:6};
	_paq.push(['setSiteId', 7]); //matomo
	not an id: XG-ABC123XYZ9 G-abc`
	var got []string
	ix.FindTrackingIDs(text, func(m IDMatch) { got = append(got, m.Service.Slug+"="+m.ID) })
	sort.Strings(got)
	want := []string{"google-ads=AW-1234567", "google-analytics=G-ABC123XYZ9", "google-tag-manager=GTM-K9X2ZQ",
		"hotjar=3141592", "matomo=7", "meta-pixel=123456789012345"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	ix.FindTrackingIDs("plain text without anything", func(m IDMatch) { t.Errorf("unexpected %v", m) })
}

// TestIndexPrefilterIsExact compares the prefiltered search with running every regex.
func TestIndexPrefilterIsExact(t *testing.T) {
	t.Parallel()
	ix := indexFixture(t)
	texts := []string{"G-ABCDEF1", "g-abcdef1 GTM-ABCD", "fbq ( 'init' , \"1234567890123456\" )", "hjid:12345",
		"HjId : 99999", "aw-123456 AW-123456", "", "GTM-", "xxGTM-ABCDxx"}
	for _, text := range texts {
		var want, got []string
		for _, r := range ix.idRegexes {
			for _, m := range r.re.FindAllStringSubmatch(text, -1) {
				want = append(want, m[1])
			}
		}
		ix.FindTrackingIDs(text, func(m IDMatch) { got = append(got, m.ID) })
		sort.Strings(want)
		sort.Strings(got)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q: got %v, want %v", text, got, want)
		}
	}
}

func TestRequiredLiteral(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`\b(G-[A-Z0-9]{6,12})\b`:                         "g-",
		`\b(GTM-[A-Z0-9]{4,9})\b`:                        "gtm-",
		`fbq\(\s*['"]init['"]\s*,\s*['"](\d{15,16})['"]`: "fbq(",
		`fbq\('init',\s*'(\d+)'`:                         "fbq('init',",
		`(?i)hjid\s*:\s*(\d+)`:                           "hjid",
		`(\d{15,16})`:                                    "",
		`(a|b)c`:                                         "c",
		`(ca-pub-\d+)`:                                   "ca-pub-",
		`x*(ab)+`:                                        "ab",
		`(?:ab)?cd`:                                      "cd",
		`[`:                                              "",
	}
	for re, want := range cases {
		if got := RequiredLiteral(re); got != want {
			t.Errorf("RequiredLiteral(%q) = %q, want %q", re, got, want)
		}
	}
}

func TestIndexMatchCookie(t *testing.T) {
	t.Parallel()
	ix := indexFixture(t)
	cases := map[string]string{"_ga": "google-analytics", "_ga_ABC": "google-analytics", "_gcl_au": "google-ads",
		"_hjSessionUser_1": "hotjar", "_g": "", "session": "", "": ""}
	for name, want := range cases {
		m, ok := ix.MatchCookie(name)
		got := ""
		if ok {
			got = m.Service.Slug
		}
		if got != want {
			t.Errorf("MatchCookie(%q) = %q, want %q", name, got, want)
		}
	}
	if m, _ := ix.MatchCookie("_ga_X"); m.Cookie.Name != "_ga_" || m.Cookie.Match != MatchPrefix {
		t.Errorf("MatchCookie(_ga_X).Cookie = %+v", m.Cookie)
	}
}

func TestNewIndexErrors(t *testing.T) {
	t.Parallel()
	bad := []*Service{
		{Slug: "a", Scripts: []string{"https://x.com/a"}},
		{Slug: "b", TrackingIDs: []TrackingID{{Pattern: "("}}},
		{Slug: "c", TrackingIDs: []TrackingID{{Pattern: "abc"}}},
		{Slug: "d", Cookies: []Cookie{{Name: "(", Match: MatchRegex}}},
	}
	for _, s := range bad {
		if _, err := NewIndex([]*Service{s}); err == nil || !strings.Contains(err.Error(), `"`+s.Slug+`"`) {
			t.Errorf("service %s: err = %v, want an error naming it", s.Slug, err)
		}
	}
	if _, err := NewIndex([]*Service{{Slug: "x"}, {Slug: "x"}}); err == nil {
		t.Error("duplicate slug accepted")
	}
	ix, err := NewIndex(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.MatchURL("https://a.com/"); ok {
		t.Error("empty index matched")
	}
	ix.FindTrackingIDs("G-ABCDEFG", func(IDMatch) { t.Error("empty index found an ID") })
	// Literals far into the match: the window bound must not cut the text backwards.
	ix, err = NewIndex([]*Service{{Slug: "far", TrackingIDs: []TrackingID{{Pattern: `[ab]{300,}(xyz)`}, {Pattern: `[cd]{300}(xyz)`}}}})
	if err != nil {
		t.Fatal(err)
	}
	ix.FindTrackingIDs("abababab xyz ababababxyz cdcdcdcdcxyz", func(m IDMatch) { t.Errorf("unexpected %v", m) })
}

// syntheticServices builds n services shaped like real catalog entries: each has a host of its
// own, a script path, a resource on a shared CDN host and a tracking ID with a literal prefix.
func syntheticServices(n int) []*Service {
	out := make([]*Service, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, &Service{
			Slug:      fmt.Sprintf("vendor-%05d", i),
			Category:  CategoryMarketing,
			Scripts:   []string{fmt.Sprintf("cdn.vendor%d.com/tag.js", i), fmt.Sprintf("*.track%d.io", i)},
			Resources: []string{fmt.Sprintf("*.cloudfront.net/v%d/pixel", i)},
			TrackingIDs: []TrackingID{
				{Pattern: fmt.Sprintf(`\b(V%dX-[A-Z0-9]{6})\b`, i)},
			},
			Cookies: []Cookie{{Name: fmt.Sprintf("_v%d_id", i), Match: MatchExact}},
		})
	}
	return out
}

func BenchmarkMatchURL(b *testing.B) {
	urls := []string{
		"https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9",
		"https://static.hotjar.com/c/hotjar-3141592.js?sv=6",
		"https://d111111abcdef8.cloudfront.net/v17/pixel?uid=1",
		"https://cdn.vendor42.com/tag.js",
		"https://unknown-cdn.example.net/assets/app.4f3a.js",
		"https://a.b.c.track31.io/x",
	}
	for _, n := range []int{50, 5000} {
		svcs := append(syntheticServices(n), indexFixture(b).services...)
		ix, err := NewIndex(svcs)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("services=%d", ix.Len()), func(b *testing.B) {
			i := 0
			for b.Loop() {
				ix.MatchURL(urls[i%len(urls)])
				i++
			}
		})
	}
}

func BenchmarkFindTrackingIDs(b *testing.B) {
	text := strings.Repeat(`window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}
gtag('js',new Date());gtag('config','G-ABC123XYZ9');var x=document.createElement('script');`, 20)
	for _, n := range []int{50, 5000} {
		ix, err := NewIndex(append(syntheticServices(n), indexFixture(b).services...))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("services=%d", ix.Len()), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				ix.FindTrackingIDs(text, func(IDMatch) {})
			}
		})
	}
}

// bruteTrackingIDs runs every regex of ix over the whole text: the reference the prefiltered
// search must agree with.
func bruteTrackingIDs(ix *Index, text string) []string {
	var out []string
	for _, r := range ix.idRegexes {
		for _, m := range r.re.FindAllStringSubmatchIndex(text, -1) {
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					out = append(out, fmt.Sprintf("%s=%s@%d-%d", ix.services[r.svc].Slug, text[m[g]:m[g+1]], m[0], m[1]))
					break
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func indexedTrackingIDs(ix *Index, text string) []string {
	var out []string
	ix.FindTrackingIDs(text, func(m IDMatch) {
		out = append(out, fmt.Sprintf("%s=%s@%d-%d", m.Service.Slug, m.ID, m.Start, m.End))
	})
	sort.Strings(out)
	return out
}

var (
	catalogIxOnce sync.Once
	catalogIx     *Index
	catalogIxErr  error
)

func catalogIndex(t testing.TB) *Index {
	t.Helper()
	catalogIxOnce.Do(func() {
		cat, err := Load("")
		if err != nil {
			catalogIxErr = err
			return
		}
		catalogIx, catalogIxErr = NewIndex(cat.Services())
	})
	if catalogIxErr != nil {
		t.Fatal(catalogIxErr)
	}
	return catalogIx
}

// catalogTexts returns every tracking-ID example of the catalog, alone, in code-like
// surroundings, upper- and lower-cased, and all of them joined, plus the recorded sites' pages.
func catalogTexts(t testing.TB, ix *Index) []string {
	var texts, all []string
	for _, s := range ix.services {
		for _, tid := range s.TrackingIDs {
			for _, ex := range tid.Examples {
				all = append(all, ex)
				texts = append(texts, ex, "x"+ex+"x", "\n"+ex+"\n", `var a="`+ex+`";`, "-"+ex+"-",
					strings.ToUpper(ex), strings.ToLower(ex), ex+ex, ex+" "+ex, ex[:len(ex)/2], ex[len(ex)/2:])
			}
		}
	}
	texts = append(texts, strings.Join(all, " "), strings.Join(all, ""), strings.Join(all, "\n"))
	pages, _ := filepath.Glob(filepath.Join("..", "testdata", "sites", "*", "*", "*"))
	for _, p := range pages {
		if b, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, ".headers") {
			texts = append(texts, string(b))
		}
	}
	return texts
}

// TestCatalogPrefilterIsExact checks the prefiltered, anchored search of the real catalog's
// tracking-ID regexes against running each of them over the whole text.
func TestCatalogPrefilterIsExact(t *testing.T) {
	t.Parallel()
	ix := catalogIndex(t)
	texts := catalogTexts(t, ix)
	if len(texts) < 500 {
		t.Fatalf("only %d texts", len(texts))
	}
	found := 0
	for _, text := range texts {
		want, got := bruteTrackingIDs(ix, text), indexedTrackingIDs(ix, text)
		found += len(want)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%.80q:\n got %v\nwant %v", text, got, want)
		}
	}
	if found < 1000 {
		t.Errorf("only %d IDs in the test texts", found)
	}
}

// TestIndexAnalysis pins how tracking-ID regexes are anchored: the literal chosen, its place in
// the match and the neighbour checks.
func TestIndexAnalysis(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern  string
		want     string // literal@minPre-maxPre, one per candidate
		anchored bool
		before   int // neighbour sets of the first candidate
		after    int
	}{
		{`\b(G-[A-Z0-9]{6,12})\b`, "G-@0-0", true, 0, 6},
		{`\b([A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})\b`, "-@5-5", true, 5, 8},
		{`(?:js(?:-de)?\.sentry-cdn\.com/|https://)([0-9a-f]{32})(?:\.min\.js|@)`, ".sentry-cdn.com/@2-5 https://@0-0", true, 1, 8},
		{`\bym\(\s*(\d{5,10})\s*,\s*['\"]init['\"]`, "ym(@0-0", true, 0, 1},
		{`\bti['\"]?\s*[:=]\s*['\"]?(\d{5,10})\b`, "ti@0-0", true, 0, 1},
		{`\[\s*["']accountID["']\s*,\s*["']([0-9a-f]{24})["']\s*\]`, "accountID@2--1", false, 2, 2},
		{`(\d+)\s*\]\s*\)\s*;\s*//matomo`, "//matomo@4--1", false, 1, 0},
		{`(?i)hjid\s*:\s*(\d{5,10})`, "HJID@0-0", true, 0, 1},
		{`(\d{15,16})`, "", false, 0, 0},
	}
	for _, c := range cases {
		re := regexp.MustCompile(c.pattern)
		r, cands := analyzeIDRegex(re, c.pattern)
		var got []string
		for _, cd := range cands {
			got = append(got, fmt.Sprintf("%s@%d-%d", cd.lit, cd.minPre, cd.maxPre))
		}
		if strings.Join(got, " ") != c.want || (r.anchored != nil) != c.anchored {
			t.Errorf("%s: got %v anchored=%v, want %s anchored=%v", c.pattern, got, r.anchored != nil, c.want, c.anchored)
			continue
		}
		if len(cands) > 0 && (len(cands[0].before) != c.before || len(cands[0].after) != c.after) {
			t.Errorf("%s: %d sets before, %d after; want %d, %d", c.pattern, len(cands[0].before), len(cands[0].after), c.before, c.after)
		}
	}
}

func FuzzFindTrackingIDs(f *testing.F) {
	ix := catalogIndex(f)
	for _, text := range catalogTexts(f, ix)[:200] {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 {
			return
		}
		if want, got := bruteTrackingIDs(ix, text), indexedTrackingIDs(ix, text); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q:\n got %v\nwant %v", text, got, want)
		}
	})
}

// BenchmarkCatalogFindTrackingIDs runs the real catalog's tracking-ID search over the recorded
// sites' pages.
func BenchmarkCatalogFindTrackingIDs(b *testing.B) {
	ix := catalogIndex(b)
	pages, _ := filepath.Glob(filepath.Join("..", "testdata", "sites", "*", "*", "*.html"))
	var texts []string
	n := 0
	for _, p := range pages {
		if data, err := os.ReadFile(p); err == nil {
			texts = append(texts, string(data))
			n += len(data)
		}
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		for _, t := range texts {
			ix.FindTrackingIDs(t, func(IDMatch) {})
		}
	}
}
