package extract

import (
	"bytes"
	"sync"

	"github.com/consentd/consentd/library"
	"golang.org/x/net/html"
)

// idAttrs are the attribute names an index's tracking IDs are carried in
// (library.TrackingID.Attributes), for one index.
type idAttrs map[string]bool

var idAttrsByIndex sync.Map // *library.Index → idAttrs

func idAttrsOf(ix *library.Index) idAttrs {
	return perIndex(&idAttrsByIndex, ix, func() idAttrs {
		names := idAttrs{}
		for _, svc := range ix.Services() {
			for _, id := range svc.TrackingIDs {
				for _, a := range id.Attributes {
					names[a] = true
				}
			}
		}
		return names
	})
}

// in reports whether b names one of the attributes (as written, lower case: the form vendors
// ship their embeds in).
func (a idAttrs) in(b []byte) bool {
	for name := range a {
		if bytes.Contains(b, []byte(name)) {
			return true
		}
	}
	return false
}

// idAttributes reads the ID-carrying attributes of the current start tag as `name="value"`
// text against the tracking-ID patterns: reCAPTCHA's widget <div data-sitekey="6L…">.
func (x *Extractor) idAttributes(ta *tagAttrs, z *html.Tokenizer, names idAttrs) {
	ta.reset(z)
	buf := x.attrBuf[:0]
	for {
		k, v, ok := ta.next()
		if !ok {
			break
		}
		if names[string(k)] {
			buf = append(buf, k...)
			buf = append(buf, '=', '"')
			buf = append(buf, v...)
			buf = append(buf, '"', ' ')
		}
	}
	x.attrBuf = buf
	if len(buf) == 0 {
		return
	}
	text := string(buf)
	x.ix.FindTrackingIDs(text, func(m library.IDMatch) {
		x.rep.AddHit(Hit{Service: m.Service, ID: m.ID,
			Evidence: Evidence{Kind: EvidenceAttribute, Page: x.page, Snippet: Snippet(text, m.Start, m.End)}})
	})
}
