package edgerewrite_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/consentd/consentd/adapters/edgerewrite"
)

// FuzzRewrite: on any input the rewriter neither fails nor panics; a visitor held nothing gets
// the input byte for byte (the tokens' raw bytes cover the input whatever its markup); a page
// naming no host of any rule comes out unchanged; and rewriting twice changes nothing more.
// Its seed corpus runs as a normal test.
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{shopPage, "", "<", "<script", "<script src=//www.googletagmanager.com/gtag/js?id=G-1>", "<noscript><img src=//www.facebook.com/tr>",
		"<iframe src=//www.youtube.com/embed/x></iframe>", "<link rel='preconnect stylesheet' href=//fonts.googleapis.com/css2>", "<base href=//www.googletagmanager.com/><script src=gtag/js?id=G-x>",
		"<script>x('https://connect.facebook.net/en_US/fbevents.js')</script>", "<svg><script src=//www.googletagmanager.com/gtag/js?id=G-1></script></svg>",
		"<!-- x --><![CDATA[ y ]]><!DOCTYPE z><a b=c d='e' f=\"g\" h>", "<scr\x00ipt src=//x>", "<img src=\"//www.facebook.com/tr\" srcset=\"//www.facebook.com/tr 2x\">"} {
		f.Add(s)
	}
	m := shopRules(f).Compile()
	held, none := m.Visitor(france, "", false), m.Visitor(japan, "", false)
	hosts := []string{"googletagmanager", "facebook", "youtube", "googleapis", "google", "hotjar", "doubleclick", "tiktok", "linkedin", "bing", "twitter", "pinterest", "snap", "reddit", "criteo", "clarity", "licdn", "ads", "x.com", "t.co", "hs-", "hubspot", "segment", "mixpanel", "amplitude"}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		if err := edgerewrite.Rewrite(&out, strings.NewReader(in), none, page); err != nil {
			t.Fatal(err)
		}
		if out.String() != in {
			t.Fatalf("nothing held, but changed:\n%q\n%q", in, out.String())
		}
		out.Reset()
		if err := edgerewrite.Rewrite(&out, strings.NewReader(in), held, page); err != nil {
			t.Fatal(err)
		}
		once := out.String()
		names := false
		for _, h := range hosts {
			names = names || strings.Contains(strings.ToLower(in), h)
		}
		if !names && !strings.Contains(strings.ToLower(in), "base") && once != in {
			t.Fatalf("no rule's host named, but changed:\n%q\n%q", in, once)
		}
		out.Reset()
		if err := edgerewrite.Rewrite(&out, strings.NewReader(once), held, page); err != nil {
			t.Fatal(err)
		}
		if out.String() != once {
			t.Fatalf("rewriting again changed it:\n%q\n%q\n%q", in, once, out.String())
		}
	})
}

// FuzzScannerAgreesWithTokenizer: the scanner in front of the tokenizer (scan.go) writes
// exactly what the tokenizer alone makes the rewriter write, for a visitor held things, on any
// input, read in pieces of any size.
func FuzzScannerAgreesWithTokenizer(f *testing.F) {
	for _, s := range []string{shopPage, string(tagPage(8 << 10)), "<a title='<script src=//www.googletagmanager.com/gtag/js?id=G-1>'>x</a>",
		"<style>p{}</sty</style ><script>if(a</b){}<!--<script>x</script>--></script><img src=//www.facebook.com/tr>",
		"<textarea><img src=//www.facebook.com/tr></textarea><title><iframe src=//www.youtube.com/embed/x></title>",
		"<noscript/><img src=//www.facebook.com/tr></noscript>", "<plaintext><img src=//www.facebook.com/tr>", "</ x><? y ><!- z><!DOCTYPE html></>",
		"<img =src=//www.facebook.com/tr src = //www.facebook.com/tr / >", "<script/>x</script>", "<iframe src=//www.youtube.com/embed/x>a</iframe  >",
		"<div a=\"x>y\" b='<img src=//www.facebook.com/tr>'>", "<p<img src=//www.facebook.com/tr>", "<!--<img src=//www.facebook.com/tr>-->",
		"<script>t.src='https://connect.facebook.net/en_US/fbevents.js'</script><SCRIPT type=module>x</SCRIPT a='>'>", "<script>a<!--b</script>c</script>",
		"<script src=//www.googletagmanager.com/gtag/js?id=G-1></script\n>", "<script>x</script", "<script></script>", "<noscript><script>a</script><img src=//www.facebook.com/tr></noscript>"} {
		f.Add(s, uint16(7))
		f.Add(s, uint16(4096))
	}
	v := shopRules(f).Compile().Visitor(france, "", false)
	f.Fuzz(func(t *testing.T, in string, piece uint16) {
		rewriteWith := func(tokenizerOnly bool) string {
			edgerewrite.SetTokenizerOnly(tokenizerOnly)
			defer edgerewrite.SetTokenizerOnly(false)
			var out bytes.Buffer
			if err := edgerewrite.Rewrite(&out, &pieces{s: in, n: int(piece%8192) + 1}, v, page); err != nil {
				t.Fatal(err)
			}
			return out.String()
		}
		if a, b := rewriteWith(true), rewriteWith(false); a != b {
			t.Fatalf("tokenizer and scanner differ on\n%q\ntokenizer: %q\nscanner:   %q", in, a, b)
		}
	})
}

// pieces reads s n bytes at a time.
type pieces struct {
	s string
	n int
}

func (p *pieces) Read(b []byte) (int, error) {
	if p.s == "" {
		return 0, io.EOF
	}
	k := copy(b[:min(len(b), p.n)], p.s)
	p.s = p.s[k:]
	return k, nil
}
