package console

import (
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/consentd/consentd/core"
)

// contractTexts are the banner texts the contract names; the other core.TextKeys() are shown
// under "More texts".
var contractTexts = []string{"headline", "body", "acceptLabel", "rejectLabel", "preferencesLabel", "privacyLabel"}

// bannerEditor is the banner editor's data.
type bannerEditor struct {
	Banner       *core.Banner
	Templates    []string
	Positions    []string
	Behaviors    []string
	CloseActions []string
	Corners      []string
	ColorKeys    []string
	MainTexts    []string
	MoreTexts    []string
	Languages    []string
	Form         bannerForm
}

// bannerForm is the editor's form, parsed: every field of the banner, its texts and its
// translations.
type bannerForm struct {
	Template, Position, DefaultBehavior, CloseButtonBehavior string
	Colors                                                   map[string]string
	Texts                                                    map[string]string
	Translations                                             map[string]map[string]string
	Removed                                                  []string
	LogoURL, PrivacyPolicyURL, CookiePolicyURL               string
	CookieExpirationDays                                     string
	GCMExcludeVendor, StorefrontIntegration                  bool
	// ReopenButton, ReopenPosition and ReopenLabel set the "privacy settings" button shown
	// after a decision; CookieDomain the consent cookie's domain ("" for the host).
	ReopenButton                              bool
	ReopenPosition, ReopenLabel, CookieDomain string
	NewLanguage                               string
	// PreviewLanguage and PreviewCountry are the preview's visitor.
	PreviewLanguage, PreviewCountry string
}

func formOf(b *core.Banner) bannerForm {
	f := bannerForm{
		Template: b.Template, Position: b.Position, DefaultBehavior: b.DefaultBehavior, CloseButtonBehavior: b.CloseButtonBehavior,
		Colors: maps.Clone(b.Colors), Texts: maps.Clone(b.TextOverrides), Translations: map[string]map[string]string{},
		LogoURL: deref(b.LogoURL), PrivacyPolicyURL: deref(b.PrivacyPolicyURL), CookiePolicyURL: deref(b.CookiePolicyURL),
		CookieExpirationDays: strconv.Itoa(b.CookieExpirationDays), GCMExcludeVendor: b.GCMExcludeVendor,
		StorefrontIntegration: b.StorefrontIntegration, ReopenButton: b.ReopenButton, ReopenPosition: b.ReopenPosition,
		ReopenLabel: deref(b.ReopenLabel), CookieDomain: deref(b.CookieDomain),
	}
	for l, t := range b.TextTranslations {
		f.Translations[l] = maps.Clone(t)
	}
	return f
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// parseBannerForm reads the editor's fields; existing translations are named t.LANG.KEY,
// a new language's texts t.new.KEY with its code in newLanguage.
func parseBannerForm(r *http.Request) bannerForm {
	f := bannerForm{
		Template: r.PostFormValue("template"), Position: r.PostFormValue("position"),
		DefaultBehavior: r.PostFormValue("defaultBehavior"), CloseButtonBehavior: r.PostFormValue("closeButtonBehavior"),
		Colors: map[string]string{}, Texts: map[string]string{}, Translations: map[string]map[string]string{},
		LogoURL: strings.TrimSpace(r.PostFormValue("logoUrl")), PrivacyPolicyURL: strings.TrimSpace(r.PostFormValue("privacyPolicyUrl")),
		CookiePolicyURL: strings.TrimSpace(r.PostFormValue("cookiePolicyUrl")), CookieExpirationDays: strings.TrimSpace(r.PostFormValue("cookieExpirationDays")),
		GCMExcludeVendor: r.PostFormValue("gcmExcludeVendor") == "on", StorefrontIntegration: r.PostFormValue("storefrontIntegration") == "on",
		ReopenButton: r.PostFormValue("reopenButton") == "on", ReopenPosition: r.PostFormValue("reopenPosition"),
		ReopenLabel: strings.TrimSpace(r.PostFormValue("reopenLabel")), CookieDomain: strings.TrimSpace(r.PostFormValue("cookieDomain")),
		NewLanguage:     strings.TrimSpace(r.PostFormValue("newLanguage")),
		PreviewLanguage: r.PostFormValue("previewLanguage"), PreviewCountry: r.PostFormValue("previewCountry"),
	}
	for _, k := range core.ColorKeys() {
		if v := strings.TrimSpace(r.PostFormValue("color." + k)); v != "" {
			f.Colors[k] = v
		}
	}
	for _, k := range core.TextKeys() {
		f.Texts[k] = r.PostFormValue("text." + k)
	}
	for _, l := range r.PostForm["language"] {
		if r.PostFormValue("remove."+l) == "on" {
			f.Removed = append(f.Removed, l)
			continue
		}
		f.Translations[l] = map[string]string{}
		for _, k := range core.TextKeys() {
			f.Translations[l][k] = r.PostFormValue("t." + l + "." + k)
		}
	}
	if f.NewLanguage != "" {
		t := map[string]string{}
		for _, k := range core.TextKeys() {
			if v := r.PostFormValue("t.new." + k); v != "" {
				t[k] = v
			}
		}
		f.Translations[f.NewLanguage] = t
	}
	return f
}

// patch is the change the form asks for.
func (f bannerForm) patch() (core.BannerPatch, error) {
	p := core.BannerPatch{
		Template: &f.Template, Position: &f.Position, DefaultBehavior: &f.DefaultBehavior,
		CloseButtonBehavior: &f.CloseButtonBehavior, Colors: f.Colors, TextOverrides: f.Texts,
		TextTranslations: map[string]map[string]string{},
		GCMExcludeVendor: &f.GCMExcludeVendor, StorefrontIntegration: &f.StorefrontIntegration,
		ReopenButton: &f.ReopenButton, ReopenPosition: &f.ReopenPosition,
		ReopenLabel:  core.Optional[string]{Set: true, Null: f.ReopenLabel == "", Value: f.ReopenLabel},
		CookieDomain: core.Optional[string]{Set: true, Null: f.CookieDomain == "", Value: f.CookieDomain},
	}
	for l, t := range f.Translations {
		p.TextTranslations[l] = t
	}
	for _, l := range f.Removed {
		p.TextTranslations[l] = map[string]string{}
	}
	if f.NewLanguage != "" && !core.ValidLanguage(f.NewLanguage) {
		return p, core.Errorf(core.CodeInvalid, "new language: use a language code such as de, fr or pt-BR")
	}
	if f.NewLanguage != "" && len(f.Translations[f.NewLanguage]) == 0 {
		return p, core.Errorf(core.CodeInvalid, "new language: give at least one text in %s, or leave the language code empty", f.NewLanguage)
	}
	days, err := strconv.Atoi(f.CookieExpirationDays)
	if err != nil {
		return p, core.Errorf(core.CodeInvalid, "remember the choice for: enter a whole number of days from %d to %d", core.MinCookieExpiration, core.MaxCookieExpiration)
	}
	p.CookieExpirationDays = &days
	for _, u := range []struct {
		dst *core.Optional[string]
		v   string
	}{{&p.LogoURL, f.LogoURL}, {&p.PrivacyPolicyURL, f.PrivacyPolicyURL}, {&p.CookiePolicyURL, f.CookiePolicyURL}} {
		*u.dst = core.Optional[string]{Set: true, Null: u.v == "", Value: u.v}
	}
	return p, nil
}

// applyTo puts the draft on a copy of b, for the preview (the stored banner is not touched).
func (f bannerForm) applyTo(b core.Banner) *core.Banner {
	pick := func(v string, enum []string, def string) string {
		if slices.Contains(enum, v) {
			return v
		}
		return def
	}
	b.Template = pick(f.Template, core.Templates(), b.Template)
	b.Position = pick(f.Position, core.Positions(), b.Position)
	b.DefaultBehavior = pick(f.DefaultBehavior, core.DefaultBehaviors(), b.DefaultBehavior)
	b.CloseButtonBehavior = pick(f.CloseButtonBehavior, core.CloseButtonBehaviors(), b.CloseButtonBehavior)
	b.Colors = maps.Clone(b.Colors)
	maps.Copy(b.Colors, f.Colors)
	b.TextOverrides = nonEmptyTexts(f.Texts)
	b.TextTranslations = map[string]map[string]string{}
	for l, t := range f.Translations {
		if t := nonEmptyTexts(t); len(t) > 0 {
			b.TextTranslations[l] = t
		}
	}
	opt := func(v string) *string {
		if v == "" {
			return nil
		}
		return &v
	}
	b.LogoURL, b.PrivacyPolicyURL, b.CookiePolicyURL = opt(f.LogoURL), opt(f.PrivacyPolicyURL), opt(f.CookiePolicyURL)
	if d, err := strconv.Atoi(f.CookieExpirationDays); err == nil {
		b.CookieExpirationDays = d
	}
	b.GCMExcludeVendor, b.StorefrontIntegration = f.GCMExcludeVendor, f.StorefrontIntegration
	b.ReopenButton, b.ReopenPosition = f.ReopenButton, pick(f.ReopenPosition, core.ReopenPositions(), b.ReopenPosition)
	b.ReopenLabel, b.CookieDomain = opt(f.ReopenLabel), opt(f.CookieDomain)
	return &b
}

func nonEmptyTexts(t map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range t {
		if v != "" {
			out[k] = v
		}
	}
	return out
}

func (h *handler) bannerPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showBanner(w, r, rq, http.StatusOK, page{}, nil)
}

func (h *handler) showBanner(w http.ResponseWriter, r *http.Request, rq *request, status int, p page, form *bannerForm) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	b, err := h.m.Banner(r.Context(), rq.org, s.ID)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	e := bannerEditor{
		Banner: b, Templates: core.Templates(), Positions: core.Positions(), Behaviors: core.DefaultBehaviors(),
		CloseActions: core.CloseButtonBehaviors(), Corners: core.ReopenPositions(), ColorKeys: core.ColorKeys(), MainTexts: contractTexts,
	}
	for _, k := range core.TextKeys() {
		if !slices.Contains(contractTexts, k) {
			e.MoreTexts = append(e.MoreTexts, k)
		}
	}
	if form != nil {
		e.Form = *form
	} else {
		e.Form = formOf(b)
	}
	for l := range e.Form.Translations {
		if l != e.Form.NewLanguage || b.TextTranslations[l] != nil {
			e.Languages = append(e.Languages, l)
		}
	}
	sort.Strings(e.Languages)
	p.Title, p.Section, p.Tab, p.Site, p.Data = "Banner · "+s.Name, "sites", "banner", s, e
	h.render(w, r, rq, status, "banner", p)
}

func (h *handler) saveBanner(w http.ResponseWriter, r *http.Request, rq *request) {
	f := parseBannerForm(r)
	p, err := f.patch()
	if err == nil {
		_, err = h.m.PatchBanner(r.Context(), rq.org, r.PathValue("id"), p)
	}
	if err != nil {
		status, msg := h.message(r, err)
		h.showBanner(w, r, rq, status, page{Form: "banner", Error: msg}, &f)
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/banner", "Banner saved: visitors see it on their next page view.")
}

// previewPage is the preview document's data: the draft configuration the runtime is given.
type previewPage struct {
	Site    *core.Site
	Lang    string
	Config  *core.PublicConfig
	Runtime string
}

// bannerPreview renders the draft in a page of its own that loads the real runtime; the
// editor shows it in a sandboxed frame. The runtime's configuration request is answered with
// the draft by the preview's script, inside the frame.
func (h *handler) bannerPreview(w http.ResponseWriter, r *http.Request, rq *request) {
	s := h.siteOf(w, r, rq)
	if s == nil {
		return
	}
	f := parseBannerForm(r)
	country := f.PreviewCountry
	if country != "" && (len(country) != 2 || strings.ToUpper(country) != country) {
		country = ""
	}
	cfg, err := h.m.PublicConfig(r.Context(), s.ProjectKey, core.LocationOf(country, ""))
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	// The configuration is shared: only copies are changed. The draft's policy is decided
	// from the draft, so the preview behaves as the draft would.
	draft := cfg.WithBanner(f.applyTo(*cfg.Banner))
	draft.ProjectKey = "preview"
	lang := f.PreviewLanguage
	if !core.ValidLanguage(lang) {
		lang = "en"
	}
	src := core.PublicPath("", core.PublicRuntime)
	if h.cfg.RuntimeVersion != "" {
		src += "?v=" + h.cfg.RuntimeVersion
	}
	h.render(w, r, rq, http.StatusOK, "preview", page{Title: "Preview", Data: previewPage{Site: s, Lang: lang, Config: draft, Runtime: src}})
}
