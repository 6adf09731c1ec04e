package consent

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/tcf"
)

// PublicConfig returns the runtime configuration of the site named by projectKey, for a
// visitor at loc who prefers the languages prefs (BCP 47 tags, best first). It is cached
// for a second per project key and language (see ttlCache).
func (public *PublicBanner) PublicConfig(ctx context.Context, projectKey string, loc core.Location, prefs ...string) (*banner.PublicConfig, error) {
	now := public.Clock()
	v, err := public.Views.Site(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	lang := v.Language(prefs)
	key := projectKey + "\x00" + lang
	base, ok := public.Views.ConfigCache.Get(key, now)
	if !ok {
		base = public.publicConfig(v, lang)
		public.Views.ConfigCache.Put(key, v.Site.ID, base, v.At)
	}
	cfg := *base // shallow: the shared parts are read only
	cfg.Location = core.LocationOf(loc.Country, loc.Region)
	rule := base.Banner.VisitorRuleIndexed(base.Regions, cfg.Location)
	cfg.SetRule(rule)
	cfg.Policy = base.Policies.For(rule)
	// Where the visitor's state law requires it, the runtime shows that GPC was honoured.
	if cfg.Policy.GPC.Honored && core.DisplaysGPCHonored(cfg.Location.Region, public.Clock.Now()) {
		p := *cfg.Policy
		p.GPC.Display = true
		cfg.Policy = &p
	}
	cfg.Texts = base.TextsFor(base.Banner.BehaviorFor(rule))
	cfg.TCF = base.Banner.TCFApplies(rule)
	cfg.CmpID = public.TCF.Deployment.CMPID
	cfg.GPP = base.Banner.GPPFor(rule, cfg.CmpID)
	return &cfg, nil
}

func (public *PublicBanner) publicConfig(v *banner.SiteView, lang string) *banner.PublicConfig {
	texts := v.Texts(lang)
	for _, k := range banner.DeclarationTextKeys {
		delete(texts, k)
	}
	// The notice's body has its opt-out wording (optOutBody, the site's or the built-in one)
	// for a visitor under an opt-out rule: the texts travel with one body, the right one.
	optIn, optOut := maps.Clone(texts), texts
	delete(optIn, banner.OptOutTextKey)
	optOut["body"] = optOut[banner.OptOutTextKey]
	delete(optOut, banner.OptOutTextKey)
	// The texts travel in one language, merged into Texts. The banner carries the site's own
	// texts for that language as its textOverrides (for runtimes from before Texts, still cached
	// by browsers) and no other language.
	b := *v.Banner
	b.TextOverrides, b.TextTranslations = v.SiteTexts(lang), map[string]map[string]string{}
	cfg := &banner.PublicConfig{
		ProjectKey: v.Site.ProjectKey, Banner: &b, Lang: lang, Dir: banner.Dir(lang), Languages: v.Languages(), Texts: optIn, OptInTexts: optIn, OptOutTexts: optOut,
		BlockingRules: banner.BlockingRulesOf(public.Catalog, v.Banner, v.Cats, v.Svcs), Categories: make([]banner.PublicCategory, 0, len(v.Cats)),
		CookieRules: banner.CookieRules(public.Catalog, v.Cats, v.Svcs), Policies: banner.DecidePolicies(v.Banner, v.Cats),
		Regions: banner.NewRegionIndex(v.Banner.RegionRules),
	}
	for _, c := range v.Cats {
		lc := *c
		lc.Name, lc.Description = banner.CategoryText(c, lang)
		lc.NameTranslations, lc.DescriptionTranslations = map[string]string{}, map[string]string{}
		pc := banner.PublicCategory{Category: &lc, Services: []*banner.Service{}}
		for _, s := range v.Svcs {
			if s.CategoryID != c.ID {
				continue
			}
			ls := *s
			ls.Label, ls.Description = banner.Translated(s.LabelTranslations, lang, s.Label), banner.Translated(s.DescriptionTranslations, lang, s.Description)
			ls.LabelTranslations, ls.DescriptionTranslations = map[string]string{}, map[string]string{}
			ls.Cookies = make([]*banner.Cookie, len(s.Cookies))
			for i, k := range s.Cookies {
				lk := *k
				lk.Description = banner.Translated(k.DescriptionTranslations, lang, k.Description)
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
	Store   Store
	Catalog core.Catalog
	Clock   core.Clock
	NewID   func() string
	Views   *banner.PublicViews
	TCF     tcf.Ports
	// Verifiers tells a verifier's credential (core/verifier) from anything else; without it
	// every decision is a visitor's.
	Verifiers interface {
		Valid(ctx context.Context, token, projectKey string) bool
	}
	// Decisions counts every decision stored, once, after its commit (core/analytics); nil
	// counts nothing.
	Decisions DecisionCounter
	// savedSnapshots are the snapshots (site ID and hash) this process stored.
	savedSnapshots keySet
}

// DecisionCounter counts stored decisions for the analytics (core/analytics): in memory,
// outside the record's transaction.
type DecisionCounter interface {
	CountDecision(r *ConsentRecord, in ConsentInput)
}

// Declaration returns the cookie declaration of the site named by projectKey in the first of
// the visitor's preferred languages (BCP 47 tags, best first) that the site speaks. It is
// cached like the public configuration.
func (public *PublicBanner) Declaration(ctx context.Context, projectKey string, prefs ...string) (*banner.Declaration, error) {
	now := public.Clock()
	st, err := public.Views.Site(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	lang := st.Language(prefs)
	key := projectKey + "\x00" + lang
	if d, ok := public.Views.DeclCache.Get(key, now); ok {
		return d, nil
	}
	d := &banner.Declaration{
		ProjectKey: projectKey, SiteName: st.Site.Name, SiteURL: st.Site.URL, Lang: lang, Dir: banner.Dir(lang),
		Texts: st.Texts(lang), UpdatedAt: st.Banner.UpdatedAt, Categories: []banner.DeclaredCategory{},
	}
	ownDeclared := false
	for _, c := range st.Cats {
		d.UpdatedAt = banner.Latest(d.UpdatedAt, c.UpdatedAt)
		name, desc := banner.CategoryText(c, lang)
		dc := banner.DeclaredCategory{Slug: c.Slug, Name: name, Description: desc, IsRequired: c.IsRequired, Services: []banner.DeclaredService{}}
		// consentd's own cookie is strictly necessary: it holds the visitor's choice.
		if c.IsRequired && !ownDeclared {
			ownDeclared = true
			dc.Services = append(dc.Services, banner.DeclaredService{Slug: banner.ConsentCookieName, Label: banner.ConsentCookieName,
				PrivacyPolicyURL: st.Banner.PrivacyPolicyURL,
				Cookies: []banner.DeclaredCookie{{Name: banner.ConsentCookieName, Type: "cookie",
					Duration: fmt.Sprintf("%d days", st.Banner.CookieExpirationDays), Description: d.Texts["ownCookieDescription"]}}})
		}
		for _, s := range st.Svcs {
			if s.CategoryID != c.ID {
				continue
			}
			d.UpdatedAt = banner.Latest(d.UpdatedAt, s.UpdatedAt)
			ds := banner.DeclaredService{
				Slug: s.Slug, Label: banner.Translated(s.LabelTranslations, lang, s.Label),
				Description:      banner.Translated(s.DescriptionTranslations, lang, s.Description),
				PrivacyPolicyURL: s.PrivacyPolicyURL, Cookies: []banner.DeclaredCookie{},
			}
			if ds.PrivacyPolicyURL == nil {
				ds.PrivacyPolicyURL = s.ServiceURL
			}
			lib, _ := public.Catalog.Service(s.Slug)
			for _, k := range s.Cookies {
				dk := banner.DeclaredCookie{
					Name: k.Name, Type: banner.StorageOf(lib, k.Name), Duration: k.Duration,
					Description: banner.Translated(k.DescriptionTranslations, lang, k.Description),
				}
				// A session cookie's lifetime is said in the declaration's language.
				if strings.EqualFold(strings.TrimSpace(k.Duration), "session") {
					dk.Duration = d.Texts["sessionDuration"]
				}
				// A name prefix (the library's "_ga_", a custom "_ga_*") is shown as "_ga_*",
				// which the page explains (prefixCookieNote).
				if strings.HasSuffix(k.Name, "*") || banner.LibraryPrefix(lib, k.Name) {
					dk.Name, dk.Prefix = strings.TrimRight(k.Name, "*")+"*", true
					ds.Note = d.Texts["prefixCookieNote"]
				}
				ds.Cookies = append(ds.Cookies, dk)
			}
			dc.Services = append(dc.Services, ds)
		}
		d.Categories = append(d.Categories, dc)
	}
	public.Views.DeclCache.Put(key, st.Site.ID, d, st.At)
	return d, nil
}

// TCFConfig returns what the TCF module needs for the site named by projectKey in lang (the
// language of the site's configuration, PublicConfig.Lang): not_found when the site does not
// exist or has TCF off, or when no GVL is loaded. Cached for a second per project key and
// language, as the configuration is.
func (public *PublicBanner) TCFConfig(ctx context.Context, projectKey, lang string) (*tcf.TCFPublicConfig, error) {
	now := public.Clock()
	v, err := public.Views.Site(ctx, projectKey, now)
	if err != nil {
		return nil, err
	}
	if !v.Banner.TCF.Enabled {
		return nil, core.Errorf(core.CodeNotFound, "TCF is not enabled on this site")
	}
	lang = strings.ToLower(strings.TrimSpace(lang))
	key := projectKey + "\x00" + lang
	if cfg, ok := public.Views.TcfCache.Get(key, now); ok {
		return cfg, nil
	}
	gvl, err := public.TCF.GVL(ctx)
	if err != nil {
		return nil, err
	}
	if gvl == nil {
		return nil, core.Errorf(core.CodeNotFound, "no Global Vendor List is loaded on this server yet")
	}
	tr, err := public.TCF.Translation(ctx, lang)
	if err != nil {
		return nil, err
	}
	ac, err := public.TCF.ACProviders(ctx)
	if err != nil {
		return nil, err
	}
	cfg := public.TCF.Config(v.Banner.TCF, gvl, tr, ac)
	public.Views.TcfCache.Put(key, v.Site.ID, cfg, v.At)
	return cfg, nil
}
