package core

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// PublicConfig returns the runtime configuration of the site named by projectKey, for a
// visitor at loc who prefers the languages prefs (BCP 47 tags, best first). It is cached
// for a second per project key and language (see ttlCache).
func (public *PublicBanner) PublicConfig(ctx context.Context, projectKey string, loc Location, prefs ...string) (*PublicConfig, error) {
	now := public.clock()
	v, err := public.views.site(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	lang := v.language(prefs)
	key := projectKey + "\x00" + lang
	base, ok := public.views.configCache.get(key, now)
	if !ok {
		base = public.publicConfig(v, lang)
		public.views.configCache.put(key, v.site.ID, base, v.at)
	}
	cfg := *base // shallow: the shared parts are read only
	cfg.location = LocationOf(loc.Country, loc.Region)
	rule := base.Banner.visitorRuleIndexed(base.regions, cfg.location)
	cfg.setRule(rule)
	cfg.Policy = base.policies.For(rule)
	cfg.Texts = base.textsFor(base.Banner.behaviorFor(rule))
	cfg.TCF = base.Banner.TCFApplies(rule)
	cfg.cmpID = public.tcf.deployment.CMPID
	cfg.GPP = base.Banner.GPPFor(rule, cfg.cmpID)
	return &cfg, nil
}

func (public *PublicBanner) publicConfig(v *siteView, lang string) *PublicConfig {
	texts := v.texts(lang)
	for _, k := range declarationTextKeys {
		delete(texts, k)
	}
	// The notice's body has its opt-out wording (optOutBody, the site's or the built-in one)
	// for a visitor under an opt-out rule: the texts travel with one body, the right one.
	optIn, optOut := maps.Clone(texts), texts
	delete(optIn, optOutTextKey)
	optOut["body"] = optOut[optOutTextKey]
	delete(optOut, optOutTextKey)
	// The texts travel in one language, merged into Texts. The banner carries the site's own
	// texts for that language as its textOverrides (for runtimes from before Texts, still cached
	// by browsers) and no other language.
	b := *v.banner
	b.TextOverrides, b.TextTranslations = v.siteTexts(lang), map[string]map[string]string{}
	cfg := &PublicConfig{
		ProjectKey: v.site.ProjectKey, Banner: &b, Lang: lang, Languages: v.languages(), Texts: optIn, optInTexts: optIn, optOutTexts: optOut,
		BlockingRules: blockingRulesOf(public.catalog, v.banner, v.cats, v.svcs), Categories: make([]PublicCategory, 0, len(v.cats)),
		CookieRules: cookieRules(public.catalog, v.cats, v.svcs), policies: DecidePolicies(v.banner, v.cats),
		regions: newRegionIndex(v.banner.RegionRules),
	}
	for _, c := range v.cats {
		lc := *c
		lc.Name, lc.Description = categoryText(c, lang)
		lc.NameTranslations, lc.DescriptionTranslations = map[string]string{}, map[string]string{}
		pc := PublicCategory{Category: &lc, Services: []*Service{}}
		for _, s := range v.svcs {
			if s.CategoryID != c.ID {
				continue
			}
			ls := *s
			ls.Label, ls.Description = translated(s.LabelTranslations, lang, s.Label), translated(s.DescriptionTranslations, lang, s.Description)
			ls.LabelTranslations, ls.DescriptionTranslations = map[string]string{}, map[string]string{}
			ls.Cookies = make([]*Cookie, len(s.Cookies))
			for i, k := range s.Cookies {
				lk := *k
				lk.Description = translated(k.DescriptionTranslations, lang, k.Description)
				lk.DescriptionTranslations = map[string]string{}
				ls.Cookies[i] = &lk
			}
			pc.Services = append(pc.Services, &ls)
		}
		cfg.Categories = append(cfg.Categories, pc)
	}
	return cfg
}

// PublicBanner are the use cases of the public endpoints a site's banner calls: its
// configuration, its cookie declaration, and recording a visitor's consent (with the
// snapshot of what the visitor was shown).
type PublicBanner struct {
	store   Store
	catalog Catalog
	clock
	newID func() string
	views *publicViews
	tcf   tcfDeps
	// savedSnapshots are the snapshots (site ID and hash) this process stored.
	savedSnapshots keySet
}

// Declaration returns the cookie declaration of the site named by projectKey in the first of
// the visitor's preferred languages (BCP 47 tags, best first) that the site speaks. It is
// cached like the public configuration.
func (public *PublicBanner) Declaration(ctx context.Context, projectKey string, prefs ...string) (*Declaration, error) {
	now := public.clock()
	st, err := public.views.site(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	lang := st.language(prefs)
	key := projectKey + "\x00" + lang
	if d, ok := public.views.declCache.get(key, now); ok {
		return d, nil
	}
	d := &Declaration{
		ProjectKey: projectKey, SiteName: st.site.Name, SiteURL: st.site.URL, Lang: lang,
		Texts: st.texts(lang), UpdatedAt: st.banner.UpdatedAt, Categories: []DeclaredCategory{},
	}
	ownDeclared := false
	for _, c := range st.cats {
		d.UpdatedAt = latest(d.UpdatedAt, c.UpdatedAt)
		name, desc := categoryText(c, lang)
		dc := DeclaredCategory{Slug: c.Slug, Name: name, Description: desc, IsRequired: c.IsRequired, Services: []DeclaredService{}}
		// consentd's own cookie is strictly necessary: it holds the visitor's choice.
		if c.IsRequired && !ownDeclared {
			ownDeclared = true
			dc.Services = append(dc.Services, DeclaredService{Slug: ConsentCookieName, Label: ConsentCookieName,
				PrivacyPolicyURL: st.banner.PrivacyPolicyURL,
				Cookies: []DeclaredCookie{{Name: ConsentCookieName, Type: "cookie",
					Duration: fmt.Sprintf("%d days", st.banner.CookieExpirationDays), Description: d.Texts["ownCookieDescription"]}}})
		}
		for _, s := range st.svcs {
			if s.CategoryID != c.ID {
				continue
			}
			d.UpdatedAt = latest(d.UpdatedAt, s.UpdatedAt)
			ds := DeclaredService{
				Slug: s.Slug, Label: translated(s.LabelTranslations, lang, s.Label),
				Description:      translated(s.DescriptionTranslations, lang, s.Description),
				PrivacyPolicyURL: s.PrivacyPolicyURL, Cookies: []DeclaredCookie{},
			}
			if ds.PrivacyPolicyURL == nil {
				ds.PrivacyPolicyURL = s.ServiceURL
			}
			lib, _ := public.catalog.Service(s.Slug)
			for _, k := range s.Cookies {
				dk := DeclaredCookie{
					Name: k.Name, Type: storageOf(lib, k.Name), Duration: k.Duration,
					Description: translated(k.DescriptionTranslations, lang, k.Description),
				}
				// A session cookie's lifetime is said in the declaration's language.
				if strings.EqualFold(strings.TrimSpace(k.Duration), "session") {
					dk.Duration = d.Texts["sessionDuration"]
				}
				// A name prefix (the library's "_ga_", a custom "_ga_*") is shown as "_ga_*",
				// which the page explains (prefixCookieNote).
				if strings.HasSuffix(k.Name, "*") || libraryPrefix(lib, k.Name) {
					dk.Name, dk.Prefix = strings.TrimRight(k.Name, "*")+"*", true
					ds.Note = d.Texts["prefixCookieNote"]
				}
				ds.Cookies = append(ds.Cookies, dk)
			}
			dc.Services = append(dc.Services, ds)
		}
		d.Categories = append(d.Categories, dc)
	}
	public.views.declCache.put(key, st.site.ID, d, st.at)
	return d, nil
}

// TCFConfig returns what the TCF module needs for the site named by projectKey in lang (the
// language of the site's configuration, PublicConfig.Lang): not_found when the site does not
// exist or has TCF off, or when no GVL is loaded. Cached for a second per project key and
// language, as the configuration is.
func (public *PublicBanner) TCFConfig(ctx context.Context, projectKey, lang string) (*TCFPublicConfig, error) {
	now := public.clock()
	v, err := public.views.site(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	if !v.banner.TCF.Enabled {
		return nil, Errorf(CodeNotFound, "TCF is not enabled on this site")
	}
	lang = strings.ToLower(strings.TrimSpace(lang))
	key := projectKey + "\x00" + lang
	if cfg, ok := public.views.tcfCache.get(key, now); ok {
		return cfg, nil
	}
	gvl, err := public.tcf.gvl(ctx)
	if err != nil {
		return nil, err
	}
	if gvl == nil {
		return nil, Errorf(CodeNotFound, "no Global Vendor List is loaded on this server yet")
	}
	tr, err := public.tcf.translation(ctx, lang)
	if err != nil {
		return nil, err
	}
	cfg := public.tcf.config(v.banner.TCF, gvl, tr)
	public.views.tcfCache.put(key, v.site.ID, cfg, v.at)
	return cfg, nil
}

// checkTCFInput checks the TCF fields of a decision on the site with banner b and returns the
// GVL version to record: a TC string is decoded (a malformed one is refused), must carry this
// deployment's CMP ID, be service-specific, have a disclosed-vendors segment, and name a GVL
// version this server has (and gvlVersion when the runtime sent one); an AC string must be
// Google's v2 format and name only the site's providers; both only on a site with TCF on.
func (public *PublicBanner) checkTCFInput(ctx context.Context, b *Banner, in ConsentInput) (int, error) {
	if in.TCString == "" && in.ACString == "" {
		if in.GVLVersion != 0 {
			return 0, FieldErrorf("gvlVersion", "only with a tcString")
		}
		return 0, nil
	}
	if !b.TCF.Enabled {
		field := "tcString"
		if in.TCString == "" {
			field = "acString"
		}
		return 0, FieldErrorf(field, "TCF is not enabled on this site")
	}
	if len(in.ACString) > MaxACString {
		return 0, FieldErrorf("acString", "must be at most %d characters", MaxACString)
	}
	if in.ACString != "" {
		m := acStringPattern.FindStringSubmatch(in.ACString)
		if m == nil {
			return 0, FieldErrorf("acString", "not an Additional Consent string v2 (2~1.35.41~dv.9.21)")
		}
		for _, list := range []string{m[1], m[3]} {
			for _, id := range strings.Split(list, ".") {
				if n, err := strconv.Atoi(id); id != "" && (err != nil || !slices.Contains(b.TCF.GoogleATPIDs, n)) {
					return 0, FieldErrorf("acString", "provider %s is not one of the site's (tcf.googleAtpIds)", id)
				}
			}
		}
	}
	if in.TCString == "" {
		if in.GVLVersion != 0 {
			return 0, FieldErrorf("gvlVersion", "only with a tcString")
		}
		return 0, nil
	}
	if len(in.TCString) > MaxTCString {
		return 0, FieldErrorf("tcString", "must be at most %d characters", MaxTCString)
	}
	if !tcStringPattern.MatchString(in.TCString) {
		return 0, FieldErrorf("tcString", "not a TC string (segments of web-safe base64 separated by '.')")
	}
	tc, err := public.tcf.decode(in.TCString)
	if err != nil {
		return 0, err
	}
	switch cmp := public.tcf.deployment.CMPID; {
	case tc.CMPID != cmp:
		return 0, FieldErrorf("tcString", "made by CMP %d, not by this deployment's (%d)", tc.CMPID, cmp)
	case !tc.IsServiceSpecific:
		return 0, FieldErrorf("tcString", "not service-specific (TCF 2.3 strings are)")
	case tc.VendorsDisclosed == nil:
		return 0, FieldErrorf("tcString", "has no disclosed-vendors segment, which TCF 2.3 requires")
	case in.GVLVersion != 0 && in.GVLVersion != tc.VendorListVersion:
		return 0, FieldErrorf("gvlVersion", "%d, but the tcString says vendorListVersion %d", in.GVLVersion, tc.VendorListVersion)
	}
	if _, err := public.tcf.lists.GVL(ctx, tc.VendorListVersion); IsNotFound(err) {
		return 0, FieldErrorf("tcString", "vendorListVersion %d is not a Global Vendor List this server has served", tc.VendorListVersion)
	} else if err != nil {
		return 0, err
	}
	return tc.VendorListVersion, nil
}
