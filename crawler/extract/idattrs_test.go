package extract

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/consentd/consentd/library/librarytest"
)

// TestSiteKeyAttribute: reCAPTCHA's widget markup as Google documents it (api.js, and the key
// in data-sitekey on a div, or on the button of the invisible variant) yields the site key as
// reCAPTCHA's tracking ID; the same key in an attribute the library does not name does not.
func TestSiteKeyAttribute(t *testing.T) {
	t.Parallel()
	ix := librarytest.Index(t)
	page := `<html><head><title>Contact</title>
	<script src="https://www.google.com/recaptcha/api.js" async defer></script>
	</head><body><form action="/contact" method="POST">
	<div class="g-recaptcha" data-sitekey="6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI"></div>
	<button class="g-recaptcha" data-sitekey="6Lc3xYkpAAAAAB2kTq9VhM0pZr7WnE4sJd1uLx8F" data-callback='onSubmit' data-action='submit'>Submit</button>
	<div data-note="6LdZzZzZAAAAAZzZzZzZzZzZzZzZzZzZzZzZzZzZ"></div>
	</form></body></html>`
	u, _ := url.Parse("https://shop.example/contact")
	x := New(ix, nil, RegistrableDomain, u, u.String(), false)
	x.Run([]byte(page))
	var got []string
	for _, h := range x.rep.Hits {
		got = append(got, fmt.Sprintf("%s %s %s", h.Service.Slug, h.Evidence.Kind, h.ID))
	}
	want := "[recaptcha script  recaptcha attribute 6LeIxAcTAAAAAJcZVRqyHh71UMIEGNQ_MXjiZKhI recaptcha attribute 6Lc3xYkpAAAAAB2kTq9VhM0pZr7WnE4sJd1uLx8F]"
	if fmt.Sprint(got) != want {
		t.Errorf("hits\n got %q\nwant %s", got, want)
	}
}
