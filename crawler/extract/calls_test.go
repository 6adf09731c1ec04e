package extract

import (
	"fmt"
	"testing"

	"github.com/consentd/consentd/library/librarytest"
)

func TestCallNames(t *testing.T) {
	t.Parallel()
	names := callNames{}
	for _, p := range []string{`fbq\(\s*['"]init`, `\bym\(\s*(\d+)`, `amplitude\.(?:getInstance\(\)\.)?init\(`, `\b(G-[A-Z0-9]{6,12})\b`} {
		addCallNames(names, p)
	}
	if fmt.Sprint(names) != "map[fbq:true getInstance:true init:true ym:true]" {
		t.Errorf("call names %v", names)
	}
	if !callNamesOf(librarytest.Index(t))["fbq"] {
		t.Error("the catalog's call names lack fbq")
	}
}

func TestNormalizeCalls(t *testing.T) {
	t.Parallel()
	names := callNames{"fbq": true, "pintrk": true}
	cases := map[string]string{
		`fbq ( "init" , '1' )`:        `fbq( "init" , '1' )`,
		"pintrk\n\t('load', `2`)":     `pintrk('load', '2')`,
		`if (x) { fbq('init', '1') }`: "", // nothing to change
		`if (a) fbq  ('x'); g (1)`:    `if (a) fbq('x'); g (1)`,
	}
	for in, want := range cases {
		out, gaps, ok := names.normalizeCalls(in)
		if !ok {
			out = ""
		}
		if out != want {
			t.Errorf("%q → %q, want %q", in, out, want)
		}
		// Offsets map back to the same bytes of the input.
		for i := 0; ok && i < len(out); i++ {
			if o := origOffset(gaps, i); in[o] != out[i] && !(in[o] == '`' && out[i] == '\'') {
				t.Errorf("%q: offset %d maps to %d (%q, not %q)", in, i, o, in[o], out[i])
			}
		}
	}
}

func TestScanConcatenatedHosts(t *testing.T) {
	t.Parallel()
	text := `s.src = 'https://' + disqus_shortname + '.disqus.com/embed.js'; u = "//" + n + ".disqus.com/count.js";` +
		` host = name + '.example.com'; a = '.not.concatenated/x.js'; b = x +` + "`.cdn.example.net/a.js`"
	var got []string
	scanConcatenatedHosts(text, func(lit string, start, end int) {
		got = append(got, lit+" | "+exprSnippet(text, start, end))
	})
	want := "[.disqus.com/embed.js | 'https://' + disqus_shortname + '.disqus.com/embed.js'" +
		" .disqus.com/count.js | \"//\" + n + \".disqus.com/count.js\"" +
		" .cdn.example.net/a.js | x +`.cdn.example.net/a.js`]"
	if fmt.Sprint(got) != want {
		t.Errorf("got  %s\nwant %s", fmt.Sprint(got), want)
	}
}
