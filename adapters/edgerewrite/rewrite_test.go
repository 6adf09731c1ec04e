package edgerewrite_test

import (
	"bytes"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/consentd/consentd/adapters/edgerewrite"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/edge"
	"github.com/consentd/consentd/library"
)

var (
	shopOnce sync.Once
	shopRS   *edge.RuleSet
)

// shopRules is the rule set of the shop: opt-in in Europe, no banner in Japan, opt-out
// in the United States; site-wide blocking; the built-in rules, YouTube imported in marketing
// and Google Fonts in statistics with their patterns.
func shopRules(t testing.TB) *edge.RuleSet {
	shopOnce.Do(func() {
		lib, err := library.Load("")
		if err != nil {
			t.Fatal(err)
		}
		cats := []*banner.Category{{ID: "c1", Slug: "essential", IsRequired: true}, {ID: "c2", Slug: "statistics"}, {ID: "c3", Slug: "marketing"}}
		b := &banner.Banner{DefaultBehavior: banner.BehaviorOptIn, SiteWideBlocking: true, ConsentVersion: 1, RegionRules: []banner.RegionRule{
			{Regions: []string{"EU"}, DefaultBehavior: banner.BehaviorOptIn, RejectOnFirstLayer: true},
			{Regions: []string{"US"}, DefaultBehavior: banner.BehaviorOptOut, HonorGPC: true, DoNotSellLink: true, RejectOnFirstLayer: true},
			{Regions: []string{"*"}, DefaultBehavior: banner.BehaviorNoBanner, RejectOnFirstLayer: true},
		}}
		svcs := []*banner.Service{
			{Slug: "youtube", CategoryID: "c3", BlockingPatterns: []string{"www.youtube.com/embed", "www.youtube-nocookie.com/embed"}},
			{Slug: "google-fonts", CategoryID: "c2", BlockingPatterns: []string{"fonts.googleapis.com/css", "fonts.googleapis.com/css2"}},
		}
		shopRS = edge.RuleSetOf(lib, &core.Site{ProjectKey: "pk_shop"}, b, cats, svcs)
	})
	return shopRS
}

var (
	france = core.Location{Country: "FR"}
	japan  = core.Location{Country: "JP"}
	page   = mustURL("https://shop.example/products/1")
)

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func rewrite(t testing.TB, v *edge.Visitor, in string) string {
	t.Helper()
	var out bytes.Buffer
	if err := edgerewrite.Rewrite(&out, strings.NewReader(in), v, page); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// shopPage is the shop: its vendors' snippets pasted unmarked.
const shopPage = `<!DOCTYPE html>
<html lang="fr"><head><meta charset="windows-1252">
<link rel="preconnect" href="https://www.googletagmanager.com">
<link rel="dns-prefetch" href="//connect.facebook.net">
<link rel="preconnect" href="https://cdn.shop.example" crossorigin>
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter&amp;display=swap">
<link rel="stylesheet" href="/assets/site.css" integrity="sha384-abc">
<script async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9" nonce="r4nd0m"></script>
<script nonce="r4nd0m">window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);} gtag('js', new Date()); gtag('config', 'G-ABC123XYZ9');</script>
<script>!function(f,b,e,v,n,t,s){if(f.fbq)return;n=f.fbq=function(){};t=b.createElement(e);t.async=!0;t.src=v;s=b.getElementsByTagName(e)[0];s.parentNode.insertBefore(t,s)}(window, document,'script','https://connect.facebook.net/en_US/fbevents.js'); fbq('init', '1234567890123456');</script>
<script type="module" src="/assets/app.js" integrity="sha384-def" crossorigin="anonymous"></script>
</head><body>
<noscript><img height="1" width="1" style="display:none" src="https://www.facebook.com/tr?id=1234567890123456&ev=PageView&noscript=1"/></noscript>
<IFRAME width="560" height="315" SRC="https://www.youtube.com/embed/dQw4w9WgXcQ" allowfullscreen></IFRAME>
<img src="/logo.png" alt="Logo">
</body></html>`

func TestShopPageFromFrance(t *testing.T) {
	t.Parallel()
	v := shopRules(t).Compile().Visitor(france, "", false)
	out := rewrite(t, v, shopPage)
	for _, want := range []string{
		`<script type="text/plain" data-category="statistics" data-consentd-service="google-analytics" async src="https://www.googletagmanager.com/gtag/js?id=G-ABC123XYZ9" nonce="r4nd0m"></script>`,
		`<script type="text/plain" data-category="marketing" data-consentd-service="meta-pixel">!function(f,b,e,v,n,t,s)`,
		`<img data-category="marketing" data-consentd-service="meta-pixel" height="1" width="1" style="display:none" data-src="https://www.facebook.com/tr?id=`,
		`<IFRAME data-category="marketing" data-consentd-service="youtube" width="560" height="315" data-src="https://www.youtube.com/embed/dQw4w9WgXcQ" allowfullscreen></IFRAME>`,
		`<link data-category="statistics" data-consentd-service="google-fonts" rel="stylesheet" data-href="https://fonts.googleapis.com/css2?family=Inter&amp;display=swap">`,
		// What is not held passes as it came.
		`<link rel="preconnect" href="https://cdn.shop.example" crossorigin>`,
		`<link rel="stylesheet" href="/assets/site.css" integrity="sha384-abc">`,
		`<script nonce="r4nd0m">window.dataLayer = window.dataLayer || [];`,
		`<script type="module" src="/assets/app.js" integrity="sha384-def" crossorigin="anonymous"></script>`,
		`<meta charset="windows-1252">`,
		`<img src="/logo.png" alt="Logo">`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s\nin\n%s", want, out)
		}
	}
	for _, gone := range []string{`href="https://www.googletagmanager.com"`, `//connect.facebook.net">`} {
		if strings.Contains(out, gone) {
			t.Errorf("hint %s kept", gone)
		}
	}
	// Rewriting twice changes nothing more.
	if again := rewrite(t, v, out); again != out {
		t.Errorf("not idempotent:\n%s\n---\n%s", out, again)
	}
}

func TestNothingHeldPassesByteForByte(t *testing.T) {
	t.Parallel()
	m := shopRules(t).Compile()
	accepted := "consentd=" + url.PathEscape(`{"v":1,"c":{"essential":true,"statistics":true,"marketing":true}}`)
	for name, v := range map[string]*edge.Visitor{
		"no banner":    m.Visitor(japan, "", false),
		"accepted all": m.Visitor(france, accepted, false),
	} {
		if v.HoldsAny() {
			t.Errorf("%s: holds", name)
		}
		if out := rewrite(t, v, shopPage); out != shopPage {
			t.Errorf("%s: changed:\n%s", name, out)
		}
	}
	// A visitor who is held things, on a page naming none of them.
	plain := strings.NewReplacer("googletagmanager", "example", "facebook", "example", "youtube", "example", "googleapis", "example").Replace(shopPage)
	if out := rewrite(t, m.Visitor(france, "", false), plain); out != plain {
		t.Errorf("page without held URLs changed:\n%s", out)
	}
}

func TestBaseHrefAndRelativeURLs(t *testing.T) {
	t.Parallel()
	v := shopRules(t).Compile().Visitor(france, "", false)
	in := `<head><base href="https://www.googletagmanager.com/"><script src="gtag/js?id=G-ABC123XYZ9"></script><script src="other.js"></script></head>`
	out := rewrite(t, v, in)
	if !strings.Contains(out, `<script type="text/plain" data-category="statistics" data-consentd-service="google-analytics" src="gtag/js?id=G-ABC123XYZ9">`) ||
		!strings.Contains(out, `<script src="other.js"></script>`) {
		t.Fatal(out)
	}
}

func TestMalformedMarkup(t *testing.T) {
	t.Parallel()
	v := shopRules(t).Compile().Visitor(france, "", false)
	for _, in := range []string{
		"", "<", "<script", "<script src=", `<script src="https://www.googletagmanager.com/gtag/js?id=G-1`,
		`<script src=https://www.googletagmanager.com/gtag/js?id=G-1>`, "<iframe src=//www.youtube.com/embed/x", "<!-- <script src=//www.googletagmanager.com/gtag/js?id=G-1> -->",
		"<noscript><img src=//www.facebook.com/tr?id=1", "\x00<scr\x00ipt>", "<link rel=preconnect href=>", "<img src='//www.facebook.com/tr'/", "<script>//",
	} {
		out := rewrite(t, v, in)
		if strings.Contains(in, "<!--") && out != in {
			t.Errorf("%q: comment changed: %q", in, out)
		}
		_ = out
	}
}
