package extract

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/consentd/consentd/library/librarytest"
	"golang.org/x/net/html"
)

func TestScanURLLiterals(t *testing.T) {
	t.Parallel()
	text := `a='https://connect.facebook.net/en_US/fbevents.js'; // comment https://x
	b="//static.hotjar.com/c/hotjar-"+id; c=http://bare.example/x?y=1 ; d='/relative/path';
	e="https:\/\/cdn.shopify.com\/s\/files\/a.js"; f=(//paren.example/p) g='//nodot/'`
	var got []string
	scanURLLiterals(text, func(u string, unescaped bool) { got = append(got, fmt.Sprintf("%s|%v", u, unescaped)) })
	want := []string{"https://connect.facebook.net/en_US/fbevents.js|false", "//static.hotjar.com/c/hotjar-|false",
		"http://bare.example/x?y=1|false", "//paren.example/p|false", "https://cdn.shopify.com/s/files/a.js|true"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestDecodeHTML(t *testing.T) {
	t.Parallel()
	latin := []byte("<meta charset=\"iso-8859-1\"><p>Gr\xfc\xdf</p>")
	if got := string(DecodeHTML(latin, "text/html")); !strings.Contains(got, "Grüß") {
		t.Errorf("meta-declared latin-1 not decoded: %q", got)
	}
	utf := []byte("<p>Grüß</p>")
	if got := DecodeHTML(utf, "text/html"); !bytes.Equal(got, utf) {
		t.Errorf("undeclared UTF-8 changed: %q", got)
	}
	undeclared := []byte("<p>Gr\xfc\xdf</p>")
	if got := string(DecodeHTML(undeclared, "")); got != "<p>Grüß</p>" {
		t.Errorf("undeclared invalid UTF-8 not read as windows-1252: %q", got)
	}
	// Valid UTF-8 declaring Shift_JIS is read as Shift_JIS.
	sjis := []byte("<meta charset=\"Shift_JIS\"><p>\xc3\xbc</p>")
	if got := string(DecodeHTML(sjis, "")); !strings.Contains(got, "<p>ﾃｼ</p>") {
		t.Errorf("page declaring Shift_JIS not decoded: %q", got)
	}
	// A page declaring UTF-8 in a <meta> is kept; one with an unknown declaration is decoded.
	for _, head := range []string{`<meta charset="utf-8">`, `<META CHARSET = 'UTF-8'/>`, `<meta http-equiv="content-type" content="text/html; charset=utf-8">`} {
		page := []byte(head + "<p>Grüß</p>")
		if got := DecodeHTML(page, ""); !bytes.Equal(got, page) {
			t.Errorf("%s: page changed to %q", head, got)
		}
	}
	if got := string(DecodeHTML([]byte("<meta charset=\"utf-8\"><meta charset=\"Shift_JIS\"><p>\xc3\xbc</p>"), "")); !strings.Contains(got, "<p>ü</p>") {
		t.Errorf("first declaration not honoured: %q", got)
	}
	utf16 := []byte("\xff\xfe<\x00p\x00>\x00\xfc\x00")
	if got := string(DecodeHTML(utf16, "")); !strings.HasSuffix(got, "<p>ü") {
		t.Errorf("UTF-16 with BOM not decoded: %q", got)
	}
	// A charset in the header means colly already converted the body.
	if got := DecodeHTML(latin, "text/html; charset=utf-8"); !bytes.Equal(got, latin) {
		t.Errorf("body with header charset changed")
	}
}

func TestExtractElements(t *testing.T) {
	t.Parallel()
	ix := librarytest.Index(t)
	page := `<html><head><base href="https://cdn.base.example/app/">
	<script src="lib.js"></script>
	<script type="text/plain" data-src="https://www.googletagmanager.com/gtag/js?id=G-PLAIN12345"></script>
	<link rel="canonical" href="https://www.youtube.com/embed/x"><link rel="preload" as="script" href="https://static.hotjar.com/c/hotjar-1234567.js">
	</head><body><a href="/next#frag">n</a><a href="javascript:void(0)">j</a><a href="doc.pdf">pdf</a>
	<img src="data:image/gif;base64,R0lGOD"><iframe src="about:blank"></iframe>
	<noscript><img src="https://www.facebook.com/tr?id=123456789012345&amp;ev=PageView"></noscript></body></html>`
	u, _ := url.Parse("https://shop.example/")
	x := New(ix, nil, RegistrableDomain, u, u.String(), true)
	x.Run([]byte(page))
	got := map[string]string{}
	for _, h := range x.rep.Hits {
		got[h.Service.Slug] += fmt.Sprintf("%s:%s:%v;", h.Evidence.Kind, h.ID, h.Evidence.Gated)
	}
	want := map[string]string{
		"google-analytics": "script::true;script:G-PLAIN12345:true;",
		"hotjar":           "link::false;link:1234567:false;",
		"meta-pixel":       "pixel::false;pixel:123456789012345:false;",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hits\n got %v\nwant %v", got, want)
	}
	if fmt.Sprint(x.rep.Links) != "[https://cdn.base.example/next]" {
		t.Errorf("links %v", x.rep.Links)
	}
	if len(x.rep.Unrecognized) != 1 || x.rep.Unrecognized[0].Src != "https://cdn.base.example/app/lib.js" || x.rep.Unrecognized[0].Domain != "base.example" {
		t.Errorf("unrecognized %+v", x.rep.Unrecognized)
	}
}

// corpus returns the HTML pages of the recorded sites.
func corpus(t testing.TB) [][]byte {
	t.Helper()
	var pages [][]byte
	err := filepath.Walk(filepath.Join("..", "..", "testdata", "sites"), func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".headers") || strings.HasSuffix(p, ".txt") {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte("<")) && !strings.Contains(p, "googletagmanager") {
			pages = append(pages, b)
		}
		return err
	})
	if err != nil || len(pages) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	return pages
}

func FuzzExtract(f *testing.F) {
	for _, p := range corpus(f) {
		f.Add(p)
	}
	f.Add([]byte(`<script>fbq('init','123456789012345')</script><noscript><noscript><img src=//x`))
	f.Add([]byte("<script src=\"https:\\/\\/\\/\"><script>'https:\\/\\/a.b\\/'\x00\xff"))
	ix := librarytest.Index(f)
	u, _ := url.Parse("https://fuzz.example/p")
	f.Fuzz(func(t *testing.T, body []byte) {
		x := New(ix, nil, RegistrableDomain, u, u.String(), true)
		x.Run(DecodeHTML(body, ""))
		for _, h := range x.rep.Hits {
			if h.Service == nil || h.Evidence.Kind == "" || h.Evidence.Page != "https://fuzz.example/p" {
				t.Fatalf("bad hit %+v", h)
			}
		}
		for _, l := range x.rep.Links {
			if !strings.HasPrefix(l, "http") {
				t.Fatalf("bad link %q", l)
			}
		}
		AnalyzeContainer(ix, RegistrableDomain, u, u.String(), body)
		_ = utf8.Valid(body)
	})
}

func corpusBytes(pages [][]byte) int64 {
	var n int64
	for _, p := range pages {
		n += int64(len(p))
	}
	return n
}

// BenchmarkTokenizeFloor is the floor: html.Tokenizer alone over the corpus.
func BenchmarkTokenizeFloor(b *testing.B) {
	pages := corpus(b)
	b.SetBytes(corpusBytes(pages))
	for b.Loop() {
		for _, p := range pages {
			z := html.NewTokenizer(bytes.NewReader(p))
			for z.Next() != html.ErrorToken {
			}
		}
	}
}

// BenchmarkExtract is extraction plus fingerprinting against the full catalog over the corpus,
// each pass as one scan: with a scan's registrable-domain and fingerprint caches.
func BenchmarkExtract(b *testing.B) { benchmarkExtract(b, true) }

// BenchmarkExtractUncached is BenchmarkExtract without the fingerprint cache: every page's
// script URLs and inline scripts are fingerprinted afresh.
func BenchmarkExtractUncached(b *testing.B) { benchmarkExtract(b, false) }

func benchmarkExtract(b *testing.B, cache bool) {
	pages := corpus(b)
	ix := librarytest.Index(b)
	u, _ := url.Parse("https://bench.example/")
	page := u.String() // a scan has each page's URL as a string
	b.SetBytes(corpusBytes(pages))
	for b.Loop() {
		var fp *Cache
		if cache {
			fp = NewCache()
		}
		// One registrable-domain cache per pass, as a scan keeps one.
		domains := map[string]string{}
		domainOf := func(host string) string {
			d, ok := domains[host]
			if !ok {
				d = RegistrableDomain(host)
				domains[host] = d
			}
			return d
		}
		for _, p := range pages {
			x := New(ix, fp, domainOf, u, page, true)
			x.Run(DecodeHTML(p, "text/html"))
		}
	}
}

// checkTagAttrs compares, for every start tag of body, the attributes tagAttrs cuts from the raw
// bytes with those html.Tokenizer's TagAttr returns.
func checkTagAttrs(t *testing.T, body []byte) (fast int) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(body))
	var a tagAttrs
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return fast
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		a.reset(z)
		var got []string
		for {
			k, v, ok := a.next()
			if !ok {
				break
			}
			got = append(got, string(k)+"="+string(v))
		}
		if !a.fast {
			continue
		}
		fast++
		var want []string
		_, more := z.TagName()
		for more {
			var k, v []byte
			k, v, more = z.TagAttr()
			want = append(want, string(k)+"="+string(v))
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("tag %q:\n got %q\nwant %q", z.Raw(), got, want)
		}
	}
}

func TestTagAttrs(t *testing.T) {
	t.Parallel()
	tags := `<a href=x><a HREF="y" href=z><img src = 'a b' alt=c/><br/><p a=/><x =y z= w><i a b c=d
	e="f>g"><link rel=preload href=//h.example/s.js data-x=1/ ><script src=s type="text/plain" async></script>
	<div	class="q"	id=r></div><a href="">e</a><a=b c><img src=x/ y>`
	if n := checkTagAttrs(t, []byte(tags)); n != 13 {
		t.Errorf("fast path taken for %d tags", n)
	}
	n := 0
	for _, p := range corpus(t) {
		n += checkTagAttrs(t, p)
	}
	if n < 1000 {
		t.Errorf("fast path taken for %d corpus tags", n)
	}
}

func FuzzTagAttrs(f *testing.F) {
	f.Add([]byte(`<a href=x =y z="1" Z=2 w='3'/><img/src=a>`))
	f.Add([]byte(`<p a=/><x a = b c d=e/ >`))
	f.Fuzz(func(t *testing.T, body []byte) { checkTagAttrs(t, body) })
}

// checkPlainLink compares the links recorded for ref, with the net/url-free fast path where it
// applies, with those net/url alone gives.
func checkPlainLink(t *testing.T, base, ref string) bool {
	t.Helper()
	bu, err := url.Parse(base)
	if err != nil {
		return false
	}
	fast := New(nil, nil, func(string) string { return "" }, bu, bu.String(), true)
	slow := New(nil, nil, func(string) string { return "" }, bu, bu.String(), true)
	fast.linkBytes([]byte(ref))
	slow.link(ref)
	if fmt.Sprint(fast.rep.Links) != fmt.Sprint(slow.rep.Links) {
		t.Fatalf("base %q ref %q: fast path %q, net/url %q", base, ref, fast.rep.Links, slow.rep.Links)
	}
	_, _, ok := fast.plainLink(bytes.TrimSpace([]byte(ref)))
	return ok
}

func TestPlainLink(t *testing.T) {
	t.Parallel()
	bases := []string{"https://shop.example/", "https://shop.example", "http://a.example:8080/dir/page.html?q=1",
		"https://a.example/d1/d2/", "https://A.Example/x/./y", "https://u@a.example/p", "https://a.example/%7Ex/y",
		"https://a.example/a b/c", "ftp://a.example/x"}
	refs := []string{"/p1.html", "p2.html", "../up.html", "./here", ".", "..", "/a/../b", "/a/./b", "//other.example/x",
		"/x?y=1&z=2", "q?", "/x?a b", "/x#frag", "#top", "", " /spaced ", "mailto:x@y", "a:b", "/caf%C3%A9", "/a//b",
		"/.hidden/x", "/x/...", "/x/..y", "/doc.pdf", "/img.PNG?x", "?only=query", "/é", "\\x", "/x?#", "/x?é"}
	fast := 0
	for _, b := range bases {
		for _, r := range refs {
			if checkPlainLink(t, b, r) {
				fast++
			}
		}
	}
	if fast < 40 {
		t.Errorf("fast path taken %d times", fast)
	}
}

func FuzzPlainLink(f *testing.F) {
	f.Add("https://shop.example/dir/", "../p1.html?x=1")
	f.Add("http://a.example", "p.html")
	f.Fuzz(func(t *testing.T, base, ref string) { checkPlainLink(t, base, ref) })
}

func TestCollapseSpace(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", " ", "a", "  a  b\t\nc  ", "x\u00a0y\u0085z\u2003w", "\xff \xfe\x80 q", "a\u3000", "\u00a0\u00a0",
		"gtag('config',\n\t\t'G-ABC123');", "é  è"} {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzCollapseSpace(f *testing.F) {
	f.Add("  a \u00a0b\xff ")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}

func FuzzDecodeHTML(f *testing.F) {
	for _, s := range []string{"<meta charset=utf-8>é", "<meta charset='UTF-8 '>\xe9", "<meta content=\"charset=utf-8\">ü",
		"<meta charset=\"Shift_JIS\">\xc3\xbc", "\xef\xbb\xbf<p>é", "\xff\xfe<\x00", "charset=utf-8x é", "<p>plain"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := DecodeHTML(body, ""), charsetDecode(body); !bytes.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", body, got, want)
		}
	})
}
