package console

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/consentd/consentd/adapters/console/adforms"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
)

// contractTexts are the banner texts the contract names; the other core.TextKeys() are shown
// under "More texts".
var contractTexts = []string{"headline", "body", "acceptLabel", "rejectLabel", "preferencesLabel", "privacyLabel"}

// bannerEditor is the banner editor's data.
type bannerEditor struct {
	Banner       *banner.Banner
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
	// Presets are core's presets of regional rules; Places the visitor locations the preview
	// offers.
	Presets []banner.RegionPreset
	Groups  []core.RegionGroup
	Places  []place
	// PlaceGroups are the headings of Places.
	PlaceGroups []string
	// TCF is the TCF section (tcf.go), GPP the GPP section beside it (the stored settings).
	TCF tcfSection
	GPP adforms.GPPSection
}

// place is a location the preview may pretend the visitor is at: Code is a country
// ("FR") or a subdivision ("US-CA"), "" for an unknown location; Group the heading it is
// listed under.
type place struct{ Code, Name, Group string }

// placeGroups are the headings of the preview's locations, in order.
var placeGroups = []string{"Countries", "US states and territories", "Canadian provinces and territories"}

// currentNames are the English names CLDR gives today to the regions whose names changed since
// the CLDR release golang.org/x/text's display tables were built from (CLDR 32): a country is
// named as it names itself now.
var currentNames = map[string]string{
	"MK": "North Macedonia", // CLDR 35 (2019)
	"SZ": "Eswatini",        // CLDR 35 (2019)
	"TR": "Türkiye",         // CLDR 42 (2022)
	"MO": "Macao SAR China", // CLDR 36
}

// regionName is a country's English name by its ISO code, CLDR's current one ("" when unknown).
func regionName(code string) string {
	if n, ok := currentNames[code]; ok {
		return n
	}
	r, err := language.ParseRegion(code)
	if err != nil {
		return ""
	}
	return display.English.Regions().Name(r)
}

// places lists the preview's locations from core's data, once: every country by its English
// name, then the US and Canadian subdivisions (with the US state's privacy law where it has
// one).
var places = sync.OnceValue(func() []place {
	out := []place{}
	for _, c := range core.Countries() {
		n := c
		if s := regionName(c); s != "" {
			n = s
		}
		out = append(out, place{Code: c, Name: n, Group: placeGroups[0]})
	}
	var subs []place
	for _, s := range core.Subdivisions() {
		g := placeGroups[1]
		if strings.HasPrefix(s, "CA-") {
			g = placeGroups[2]
		}
		n := core.SubdivisionName(s) + " (" + s + ")"
		if _, ok := core.USStateLawOf(s); ok {
			n += ", state privacy law"
		}
		subs = append(subs, place{Code: s, Name: n, Group: g})
	}
	out = append(out, subs...)
	slices.SortStableFunc(out, func(a, b place) int {
		if c := slices.Index(placeGroups, a.Group) - slices.Index(placeGroups, b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
})

// ruleForm is one regional rule in the editor: its region codes as typed, separated by commas
// or spaces.
type ruleForm struct {
	Regions, DefaultBehavior                    string
	HonorGPC, DoNotSellLink, RejectOnFirstLayer bool
	// Reask is the rule's own reaskAfterRejectDays, "" to take the banner's.
	Reask string
}

// reaskOf parses an optional number of days of the form ("" is none).
func reaskOf(what, v string) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < banner.MinReask || n > banner.MaxReask {
		return nil, core.Errorf(core.CodeInvalid, "%s: enter a whole number of days from %d to %d, or leave it empty for the default", what, banner.MinReask, banner.MaxReask)
	}
	return &n, nil
}

func itoaPtr(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func rulesOf(rs []banner.RegionRule) []ruleForm {
	out := make([]ruleForm, len(rs))
	for i, r := range rs {
		out[i] = ruleForm{Regions: strings.Join(r.Regions, ", "), DefaultBehavior: r.DefaultBehavior,
			HonorGPC: r.HonorGPC, DoNotSellLink: r.DoNotSellLink, RejectOnFirstLayer: r.RejectOnFirstLayer, Reask: itoaPtr(r.ReaskAfterRejectDays)}
	}
	return out
}

// inputs are the rules as core takes them; every boolean is set, as the form shows it.
func (f bannerForm) inputs() []banner.RegionRuleInput {
	out := make([]banner.RegionRuleInput, len(f.Rules))
	for i, r := range f.Rules {
		out[i] = banner.RegionRuleInput{
			Regions:         strings.FieldsFunc(r.Regions, func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r' }),
			DefaultBehavior: r.DefaultBehavior, HonorGPC: &r.HonorGPC, DoNotSellLink: &r.DoNotSellLink, RejectOnFirstLayer: &r.RejectOnFirstLayer,
		}
		// A number the form cannot parse is reported by patch (reaskOf); here it is left out.
		out[i].ReaskAfterRejectDays, _ = reaskOf("", r.Reask)
	}
	return out
}

// editRules applies one of the regional rules' buttons to the draft: "add", "remove.N",
// "up.N", "down.N" or "preset.ID". It returns what it did, or an error for an action it does
// not know.
func (f *bannerForm) editRules(action string) (string, error) {
	verb, arg, _ := strings.Cut(action, ".")
	if verb == "add" {
		f.Rules = append(f.Rules, ruleForm{DefaultBehavior: banner.BehaviorOptIn, HonorGPC: true, RejectOnFirstLayer: true})
		return "Rule " + strconv.Itoa(len(f.Rules)) + " added to the draft", nil
	}
	if verb == "preset" {
		for _, p := range banner.RegionPresets() {
			if p.ID == arg {
				f.Rules = rulesOf(p.RegionRules)
				return "The preset “" + p.Name + "” replaced the draft's rules", nil
			}
		}
		return "", core.Errorf(core.CodeInvalid, "preset: unknown preset %q", arg)
	}
	i, err := strconv.Atoi(arg)
	if err != nil || i < 0 || i >= len(f.Rules) {
		return "", core.Errorf(core.CodeInvalid, "regionRules: no rule %s", arg)
	}
	n := strconv.Itoa(i + 1)
	switch {
	case verb == "remove":
		f.Rules = slices.Delete(f.Rules, i, i+1)
		return "Rule " + n + " removed from the draft", nil
	case verb == "up" && i > 0:
		f.Rules[i-1], f.Rules[i] = f.Rules[i], f.Rules[i-1]
		return "Rule " + n + " moved up", nil
	case verb == "down" && i+1 < len(f.Rules):
		f.Rules[i], f.Rules[i+1] = f.Rules[i+1], f.Rules[i]
		return "Rule " + n + " moved down", nil
	}
	return "", core.Errorf(core.CodeInvalid, "regionRules: cannot %s rule %s", verb, n)
}

// ruleError returns the form ("rule-N") and the sentence of a validation error naming one
// of the rules, or "" when err names none. It reads the field path core's error carries
// (core.ErrorField: regionRules[N].regions[M], regionRules[N].regions or
// regionRules[N].defaultBehavior), not the message.
func ruleError(err error) (form, msg string) {
	field := core.ErrorField(err)
	if field == "" {
		return "", ""
	}
	rest, ok := strings.CutPrefix(core.ErrorMessage(err), field+": ")
	if !ok {
		return "", ""
	}
	var i, j int
	var leaf string
	switch {
	case scanPath(field, "regionRules[%d].regions[%d]", &i, &j):
		msg = "Rule " + strconv.Itoa(i+1) + ", region " + strconv.Itoa(j+1) + ": " + rest
	case scanPath(field, "regionRules[%d].%s", &i, &leaf) && leaf == "regions":
		msg = "Rule " + strconv.Itoa(i+1) + ": the regions " + rest
	case scanPath(field, "regionRules[%d].%s", &i, &leaf) && leaf == "defaultBehavior":
		msg = "Rule " + strconv.Itoa(i+1) + ": the behaviour " + rest
	default:
		return "", ""
	}
	return "rule-" + strconv.Itoa(i), sentence(msg)
}

// scanPath reads a field path of core's in format, whole.
func scanPath(field, format string, args ...any) bool {
	n, err := fmt.Sscanf(field, format, args...)
	return err == nil && n == len(args) && fmt.Sprintf(format, pointedTo(args)...) == field
}

// pointedTo returns the values args point to, to write a path back and compare it.
func pointedTo(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch p := a.(type) {
		case *int:
			out[i] = *p
		case *string:
			out[i] = *p
		}
	}
	return out
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
	// Reask is the banner's reaskAfterRejectDays, "" for the rules' defaults.
	Reask                                   string
	GCMExcludeVendor, StorefrontIntegration bool
	// ReopenButton, ReopenPosition and ReopenLabel set the "privacy settings" button shown
	// after a decision; CookieDomain the consent cookie's domain ("" for the host).
	ReopenButton                              bool
	ReopenPosition, ReopenLabel, CookieDomain string
	NewLanguage                               string
	// Rules are the regional rules, in order.
	Rules []ruleForm
	// PreviewLanguage and PreviewPlace are the preview's visitor; PreviewPlace a country
	// ("FR"), a subdivision ("US-CA") or "" for an unknown location.
	PreviewLanguage, PreviewPlace string
}

func formOf(b *banner.Banner) bannerForm {
	f := bannerForm{
		Template: b.Template, Position: b.Position, DefaultBehavior: b.DefaultBehavior, CloseButtonBehavior: b.CloseButtonBehavior,
		Colors: maps.Clone(b.Colors), Texts: maps.Clone(b.TextOverrides), Translations: map[string]map[string]string{},
		LogoURL: deref(b.LogoURL), PrivacyPolicyURL: deref(b.PrivacyPolicyURL), CookiePolicyURL: deref(b.CookiePolicyURL),
		CookieExpirationDays: strconv.Itoa(b.CookieExpirationDays), Reask: itoaPtr(b.ReaskAfterRejectDays), GCMExcludeVendor: b.GCMExcludeVendor,
		StorefrontIntegration: b.StorefrontIntegration, ReopenButton: b.ReopenButton, ReopenPosition: b.ReopenPosition,
		ReopenLabel: deref(b.ReopenLabel), CookieDomain: deref(b.CookieDomain), Rules: rulesOf(b.RegionRules),
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
		Reask:            strings.TrimSpace(r.PostFormValue("reaskAfterRejectDays")),
		GCMExcludeVendor: r.PostFormValue("gcmExcludeVendor") == "on", StorefrontIntegration: r.PostFormValue("storefrontIntegration") == "on",
		ReopenButton: r.PostFormValue("reopenButton") == "on", ReopenPosition: r.PostFormValue("reopenPosition"),
		ReopenLabel: strings.TrimSpace(r.PostFormValue("reopenLabel")), CookieDomain: strings.TrimSpace(r.PostFormValue("cookieDomain")),
		NewLanguage:     strings.TrimSpace(r.PostFormValue("newLanguage")),
		PreviewLanguage: r.PostFormValue("previewLanguage"), PreviewPlace: r.PostFormValue("previewPlace"),
		Rules: []ruleForm{},
	}
	for _, i := range r.PostForm["rule"] {
		k := "rule." + i + "."
		f.Rules = append(f.Rules, ruleForm{Regions: strings.TrimSpace(r.PostFormValue(k + "regions")),
			DefaultBehavior: r.PostFormValue(k + "defaultBehavior"), HonorGPC: r.PostFormValue(k+"honorGpc") == "on",
			DoNotSellLink: r.PostFormValue(k+"doNotSellLink") == "on", RejectOnFirstLayer: r.PostFormValue(k+"rejectOnFirstLayer") == "on",
			Reask: strings.TrimSpace(r.PostFormValue(k + "reaskAfterRejectDays"))})
	}
	for _, k := range banner.ColorKeys() {
		if v := strings.TrimSpace(r.PostFormValue("color." + k)); v != "" {
			f.Colors[k] = v
		}
	}
	for _, k := range banner.TextKeys() {
		f.Texts[k] = r.PostFormValue("text." + k)
	}
	for _, l := range r.PostForm["language"] {
		if r.PostFormValue("remove."+l) == "on" {
			f.Removed = append(f.Removed, l)
			continue
		}
		f.Translations[l] = map[string]string{}
		for _, k := range banner.TextKeys() {
			f.Translations[l][k] = r.PostFormValue("t." + l + "." + k)
		}
	}
	if f.NewLanguage != "" {
		t := map[string]string{}
		for _, k := range banner.TextKeys() {
			if v := r.PostFormValue("t.new." + k); v != "" {
				t[k] = v
			}
		}
		f.Translations[f.NewLanguage] = t
	}
	return f
}

// patch is the change the form asks for.
func (f bannerForm) patch() (banner.BannerPatch, error) {
	p := banner.BannerPatch{
		Template: &f.Template, Position: &f.Position, DefaultBehavior: &f.DefaultBehavior,
		CloseButtonBehavior: &f.CloseButtonBehavior, Colors: f.Colors, TextOverrides: f.Texts,
		TextTranslations: map[string]map[string]string{},
		GCMExcludeVendor: &f.GCMExcludeVendor, StorefrontIntegration: &f.StorefrontIntegration,
		ReopenButton: &f.ReopenButton, ReopenPosition: &f.ReopenPosition,
		ReopenLabel:  banner.Optional[string]{Set: true, Null: f.ReopenLabel == "", Value: f.ReopenLabel},
		CookieDomain: banner.Optional[string]{Set: true, Null: f.CookieDomain == "", Value: f.CookieDomain},
	}
	rules := f.inputs()
	p.RegionRules = &rules
	for l, t := range f.Translations {
		p.TextTranslations[l] = t
	}
	for _, l := range f.Removed {
		p.TextTranslations[l] = map[string]string{}
	}
	if f.NewLanguage != "" && !banner.ValidLanguage(f.NewLanguage) {
		return p, core.Errorf(core.CodeInvalid, "new language: use a language code such as de, fr or pt-BR")
	}
	if f.NewLanguage != "" && len(f.Translations[f.NewLanguage]) == 0 {
		return p, core.Errorf(core.CodeInvalid, "new language: give at least one text in %s, or leave the language code empty", f.NewLanguage)
	}
	days, err := strconv.Atoi(f.CookieExpirationDays)
	if err != nil {
		return p, core.Errorf(core.CodeInvalid, "remember the choice for: enter a whole number of days from %d to %d", banner.MinCookieExpiration, banner.MaxCookieExpiration)
	}
	p.CookieExpirationDays = &days
	reask, err := reaskOf("ask again after a refusal", f.Reask)
	if err != nil {
		return p, err
	}
	p.ReaskAfterRejectDays = banner.Optional[int]{Set: true, Null: reask == nil}
	if reask != nil {
		p.ReaskAfterRejectDays.Value = *reask
	}
	for i, r := range f.Rules {
		if _, err := reaskOf(fmt.Sprintf("rule %d, ask again after a refusal", i+1), r.Reask); err != nil {
			return p, err
		}
	}
	for _, u := range []struct {
		dst *banner.Optional[string]
		v   string
	}{{&p.LogoURL, f.LogoURL}, {&p.PrivacyPolicyURL, f.PrivacyPolicyURL}, {&p.CookiePolicyURL, f.CookiePolicyURL}} {
		*u.dst = banner.Optional[string]{Set: true, Null: u.v == "", Value: u.v}
	}
	return p, nil
}

func (h *handler) bannerPage(w http.ResponseWriter, r *http.Request, rq *request) {
	h.showBanner(w, r, rq, http.StatusOK, page{}, nil, nil)
}

// showBanner shows the banner editor with form as the banner's draft and tcf as the TCF
// section's (nil: the stored settings).
func (h *handler) showBanner(w http.ResponseWriter, r *http.Request, rq *request, status int, p page, form *bannerForm, tcf *tcfForm) {
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
		Banner: b, Templates: banner.Templates(), Positions: banner.Positions(), Behaviors: banner.DefaultBehaviors(),
		CloseActions: banner.CloseButtonBehaviors(), Corners: banner.ReopenPositions(), ColorKeys: banner.ColorKeys(), MainTexts: contractTexts,
		Presets: banner.RegionPresets(), Groups: core.RegionGroups(), Places: places(), PlaceGroups: placeGroups, GPP: adforms.GPPSectionOf(b.GPP),
	}
	for _, k := range banner.TextKeys() {
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
	tf := tcfFormOf(b.TCF)
	if tcf != nil {
		tf = *tcf
	}
	if e.TCF, err = h.tcfSectionFor(r, tf); err != nil {
		h.fail(w, r, rq, err)
		return
	}
	p.Title, p.Section, p.Tab, p.Site, p.Data = "Banner · "+s.Name, "sites", "banner", s, e
	h.render(w, r, rq, status, "banner", p)
}

func (h *handler) saveBanner(w http.ResponseWriter, r *http.Request, rq *request) {
	f := parseBannerForm(r)
	if a := r.PostFormValue("ruleAction"); a != "" {
		// A button of the regional rules changes the draft, not the banner.
		done, err := f.editRules(a)
		if err != nil {
			status, msg := h.message(r, err)
			h.showBanner(w, r, rq, status, page{Form: "banner", Error: msg}, &f, nil)
			return
		}
		h.showBanner(w, r, rq, http.StatusOK, page{Flash: done + ": save the banner to apply it."}, &f, nil)
		return
	}
	p, err := f.patch()
	if err == nil {
		_, err = h.m.PatchBanner(r.Context(), rq.org, r.PathValue("id"), p)
	}
	if err != nil {
		status, msg := h.message(r, err)
		pg := page{Form: "banner", Error: msg}
		if form, m := ruleError(err); form != "" {
			pg.Form, pg.Error = form, m
		}
		h.showBanner(w, r, rq, status, pg, &f, nil)
		return
	}
	h.redirect(w, r, rq, "/sites/"+r.PathValue("id")+"/banner", "Banner saved: visitors see it on their next page view.")
}

// previewPage is the preview document's data: the draft configuration the runtime is given.
type previewPage struct {
	Site    *core.Site
	Lang    string
	Config  *banner.PublicConfig
	Runtime string
	// Visitor says where the preview's visitor is and which of the draft's rules applies.
	Visitor string
	// Refused is why the draft was not previewed (the saved banner is shown), nil when it was.
	Refused *refusal
}

// refusal is a validation error of a draft: the field core names (core.ErrorField) and its
// message, as a PATCH of the draft would answer.
type refusal struct{ Field, Message string }

// previewBanner is the banner the form's draft would make: the draft's patch applied by core
// (PreviewBanner), or the error a PATCH of it would give.
func (h *handler) previewBanner(r *http.Request, rq *request, siteID string, f bannerForm) (*banner.Banner, error) {
	p, err := f.patch()
	if err != nil {
		return nil, err
	}
	return h.m.PreviewBanner(r.Context(), rq.org, siteID, p)
}

// visitorNote says, for the preview, which of the draft's rules applies at loc and what it
// does: the decision of core (cfg.VisitorRule and cfg.Policy), in words.
func visitorNote(loc core.Location, name string, cfg *banner.PublicConfig) string {
	where := "A visitor whose location is unknown"
	if loc.Country != "" {
		where = "A visitor from " + name
	}
	vr := cfg.VisitorRule()
	behavior, rule := cfg.Banner.DefaultBehavior, "the banner's default behaviour"
	if vr.Rule != nil {
		behavior, rule = vr.Rule.DefaultBehavior, "rule "+strconv.Itoa(vr.Index+1)
	} else if vr.Regional {
		rule = "no regional rule, so the banner's default behaviour"
	}
	words := map[string]string{banner.BehaviorOptIn: "opt-in", banner.BehaviorOptOut: "opt-out", banner.BehaviorNoBanner: "no banner"}
	out := where + ": " + rule + " (" + words[behavior] + ")"
	if cfg.Policy != nil {
		if cfg.Policy.GPC.Honored {
			out += ", Global Privacy Control honoured"
		}
		if cfg.Policy.DoNotSellLink {
			out += ", a Do Not Sell or Share control"
		}
	}
	return out + "; recorded as jurisdiction " + cfg.Jurisdiction + "."
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
	loc := core.LocationOf(f.PreviewPlace, "")
	if strings.Contains(f.PreviewPlace, "-") {
		loc = core.LocationOf("", f.PreviewPlace)
	}
	cfg, err := h.m.PublicConfig(r.Context(), s.ProjectKey, loc)
	if err != nil {
		h.fail(w, r, rq, err)
		return
	}
	// The draft is applied by core, with the checks and the code of a PATCH
	// (core.Banners.PreviewBanner): a draft the PATCH refuses is not previewed, and the note
	// says why, naming the field as saving it would.
	b, refused := h.previewBanner(r, rq, s.ID, f)
	if refused != nil && core.ErrorCode(refused) != core.CodeInvalid {
		h.fail(w, r, rq, refused)
		return
	}
	if refused != nil {
		b = cfg.Banner
	}
	// The configuration is shared: only copies are changed. The draft's policy is decided
	// from the draft, so the preview behaves as the draft would.
	draft := cfg.WithBanner(b)
	draft.ProjectKey = "preview"
	lang := f.PreviewLanguage
	if !banner.ValidLanguage(lang) {
		lang = "en"
	}
	src := core.PublicPath("", core.PublicRuntime)
	if h.cfg.RuntimeVersion != "" {
		src += "?v=" + h.cfg.RuntimeVersion
	}
	name := core.SubdivisionName(loc.Region) + " (" + loc.Region + ")"
	if loc.Region == "" {
		name = loc.Country
		if i := slices.IndexFunc(places(), func(p place) bool { return p.Code == loc.Country }); i >= 0 {
			name = places()[i].Name
		}
	}
	note := visitorNote(loc, name, draft)
	var ref *refusal
	if refused != nil {
		ref = &refusal{Field: core.ErrorField(refused), Message: core.ErrorMessage(refused)}
		if _, m := ruleError(refused); m != "" {
			note += " The draft's regional rules are not valid (" + strings.TrimSuffix(m, ".") + "): the preview shows the saved banner."
		} else {
			note += " The draft is not valid (" + strings.TrimSuffix(sentence(core.ErrorMessage(refused)), ".") + "): the preview shows the saved banner."
		}
	}
	h.render(w, r, rq, http.StatusOK, "preview", page{Title: "Preview", Data: previewPage{Site: s, Lang: lang, Config: draft, Runtime: src,
		Visitor: note, Refused: ref}})
}
