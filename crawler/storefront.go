package crawler

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// storefrontForm is the password form of a storefront's /password page.
type storefrontForm struct {
	action        *url.URL
	fields        url.Values
	passwordField string
}

// passwordForm finds the storefront password form (<form> holding
// form_type=storefront_password) in a page. goquery is used here only: forms need a tree.
func passwordForm(f *fetched) (*storefrontForm, bool) {
	if f == nil || f.final == nil {
		return nil, false
	}
	onPasswordPath := strings.TrimSuffix(f.final.Path, "/") == "/password"
	if !onPasswordPath && !bytes.Contains(f.body, []byte("storefront_password")) {
		return nil, false
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(f.body))
	if err != nil {
		return nil, false
	}
	var form *goquery.Selection
	doc.Find("form").EachWithBreak(func(_ int, sel *goquery.Selection) bool {
		if v, _ := sel.Find(`input[name="form_type"]`).Attr("value"); v == "storefront_password" {
			form = sel
			return false
		}
		return true
	})
	if form == nil {
		return nil, false
	}
	sf := &storefrontForm{fields: url.Values{}, passwordField: "password"}
	action, _ := form.Attr("action")
	if action == "" {
		action = "/password"
	}
	u, err := f.final.Parse(action)
	if err != nil {
		return nil, false
	}
	sf.action = u
	form.Find("input").Each(func(_ int, in *goquery.Selection) {
		name, _ := in.Attr("name")
		if name == "" {
			return
		}
		typ, _ := in.Attr("type")
		if strings.EqualFold(typ, "password") {
			sf.passwordField = name
			return
		}
		if strings.EqualFold(typ, "submit") || strings.EqualFold(typ, "checkbox") {
			return
		}
		v, _ := in.Attr("value")
		sf.fields.Set(name, v)
	})
	sf.fields.Set("form_type", "storefront_password")
	return sf, true
}

func (s *scan) isPasswordPage(f *fetched) bool {
	_, ok := passwordForm(f)
	return ok
}

// unlock submits the storefront password once per scan; the cookie jar keeps the
// storefront_digest cookie the shop sets, so every later request passes the gate. It returns
// the scan error when no password was given or the shop rejected it.
func (s *scan) unlock(f *fetched) error {
	s.unlockMu.Lock()
	defer s.unlockMu.Unlock()
	if s.unlocked {
		return nil
	}
	form, _ := passwordForm(f)
	pageURL := normalizeURL(f.final)
	if s.opts.StorefrontPassword == "" {
		return &Error{Kind: KindPassword, Message: fmt.Sprintf("%s asks for a storefront password and none was given", pageURL)}
	}
	form.fields.Set(form.passwordField, s.opts.StorefrontPassword)
	resp, err := s.fetch(http.MethodPost, form.action.String(), form.fields)
	if err != nil {
		return &Error{Kind: KindFetch, Temporary: isTemporaryNet(err), Err: err,
			Message: fmt.Sprintf("storefront password could not be submitted to %s: %s", form.action, fetchMessage(err))}
	}
	if _, again := passwordForm(resp); again || resp.status >= 400 {
		return &Error{Kind: KindPassword, Message: "storefront password rejected by " + pageURL}
	}
	s.unlocked = true
	return nil
}
