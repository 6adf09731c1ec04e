package banner

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/i18n"
)

// SiteView is what the public endpoints read of a site: the site, its banner, categories and
// services, loaded together and cached for publicCacheTTL. Shared: callers must not modify it.
type SiteView struct {
	At     time.Time // when it was loaded: what is derived from it expires with it
	Site   *core.Site
	Banner *Banner
	Cats   []*Category
	Svcs   []*Service
}

// Site returns what the public endpoints read of the site named by projectKey, from the
// cache when fresh.
func (views *PublicViews) Site(ctx context.Context, projectKey string, now time.Time) (*SiteView, error) {
	if v, ok := views.viewCache.Get(projectKey, now); ok {
		return v, nil
	}
	site, err := views.Store.SiteByProjectKey(ctx, projectKey)
	if err != nil {
		return nil, err
	}
	v := &SiteView{At: now, Site: site}
	if v.Banner, err = views.Store.Banner(ctx, site.ID); err != nil {
		return nil, err
	}
	if v.Cats, err = views.Store.Categories(ctx, site.ID); err != nil {
		return nil, err
	}
	if v.Svcs, err = views.Store.Services(ctx, site.ID); err != nil {
		return nil, err
	}
	views.viewCache.Put(projectKey, site.ID, v, now)
	return v, nil
}

// Languages are the languages the site's banner speaks: the built-in ones and those of its
// textTranslations, sorted.
func (v *SiteView) Languages() []string {
	set := map[string]bool{}
	for _, l := range builtinLanguages() {
		set[strings.ToLower(l)] = true
	}
	for l := range v.Banner.TextTranslations {
		set[strings.ToLower(l)] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// Language picks the language for a visitor's preferences (BCP 47 tags, best first): for the
// first preference the site speaks in any form, the first of its i18n.Candidates the site
// speaks: exactly, else a shorter prefix ("de-AT" finds "de", "zh-Hant-TW" finds "zh-hant"),
// else its alias ("zh-TW" finds "zh-hant", "no" finds "nb"); English when none is spoken. The
// banner runtime does the same with the page's lang and the browser's languages, exactly or
// by the primary subtag, and asks the server otherwise. Languages are lower case.
func (v *SiteView) Language(prefs []string) string {
	langs := v.Languages()
	for _, p := range prefs {
		for _, c := range i18n.Candidates(p) {
			if slices.Contains(langs, c) {
				return c
			}
		}
	}
	return defaultLanguage
}

// Dir is the direction the runtime lays out texts in lang: "rtl" for a language written right
// to left (i18n.RightToLeft), else "" (left to right, which the configuration leaves out).
func Dir(lang string) string {
	if i18n.RightToLeft(lang) {
		return "rtl"
	}
	return ""
}

// MaxLanguageKey bounds a language key (a BCP 47 tag): of a translation, or asked for by a
// visitor.
const MaxLanguageKey = 35

// LanguagePattern is the shape of a language key a site gives texts in: a BCP 47 tag's
// primary language subtag (two or three letters) and optional further subtags, as "de", "pt-BR"
// or "zh-Hant-TW". A key of another shape ("de_DE", "German") would never match a visitor's
// language. The API (CheckLanguage) and the console's forms check it.
const LanguagePattern = `^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`

var languageKey = regexp.MustCompile(LanguagePattern)

// ValidLanguage reports whether lang is a language key: LanguagePattern, at most
// MaxLanguageKey characters.
func ValidLanguage(lang string) bool {
	return len(lang) <= MaxLanguageKey && languageKey.MatchString(lang)
}

// CheckLanguage refuses a language key of a site's texts that is not ValidLanguage.
func CheckLanguage(field, lang string) error {
	if !ValidLanguage(lang) {
		return core.FieldErrorf(field, "%q is not a language code such as de, fr or pt-BR (at most %d characters)", lang, MaxLanguageKey)
	}
	return nil
}

// CheckPreferredLanguage refuses a language a visitor asks for that is empty or longer than
// MaxLanguageKey. Its shape is not checked: a page's lang attribute may be malformed, and an
// unknown language falls back to the site's like any other the site does not speak.
func CheckPreferredLanguage(field, lang string) error {
	if lang == "" || len(lang) > MaxLanguageKey {
		return core.FieldErrorf(field, "language key must be 1 to %d characters", MaxLanguageKey)
	}
	return core.CheckText(field, lang)
}

// defaultLanguage is the language of a visitor who prefers none the site speaks.
const defaultLanguage = "en"

// DeclarationTextKeys are the texts only the cookie declaration shows. The runtime's
// configuration leaves them out, to keep what every page view loads small; the declaration
// carries them itself.
var DeclarationTextKeys = [...]string{"declarationTitle", "declarationIntro", "yourChoiceLabel", "providerLabel", "privacyPolicyOfLabel",
	"sessionDuration", "noServicesLabel", "lastUpdatedLabel", "categoryLabel", "typeLabel", "storageCookie",
	"storageLocal", "storageSession", "ownCookieDescription", "prefixCookieNote"}

// RuntimeTexts returns the built-in texts in lang that the runtime's configuration carries:
// all but declarationTextKeys.
// preferencesTextKeys are the texts only the preferences dialog, the blocked iframe's
// placeholder, the services' cookie tables and the visitor's choice (on the declaration) show.
// The first view's configuration (FirstViewConfig, the loader's) leaves them out; the runtime
// takes them from the declaration, which it fetches when the visitor opens the preferences,
// a held iframe needs its placeholder (which names the service, whose label the declaration
// carries too) or a page shows the choice, and from the full configuration when that fetch
// fails, so that the dialog and the placeholder are whole and accessible all the same. The
// reopen button's label and the TCF dialog's (saveLabel) stay in the first view: neither
// waits for the declaration.
var preferencesTextKeys = [...]string{"preferencesBody", "servicesLabel", "cookieLabel", "durationLabel", "purposeLabel",
	"noChoiceYet", "allowedLabel", "notAllowedLabel", "consentDateLabel", "consentIdLabel", "changeConsentLabel", "withdrawConsentLabel",
	"preferencesTitle", "alwaysOnLabel", "blockedText", "allowLabel"}

// doNotSellTextKey is the label of the Do Not Sell or Share control, which the first view's
// configuration carries only for a visitor whose policy offers it (Policy.DoNotSellLink).
const doNotSellTextKey = "doNotSellLabel"

// GPCHonoredTextKey is the label saying that the visitor's GPC signal was honoured, which the
// first view's configuration carries only where the runtime shows it (GPCPolicy.Display).
const GPCHonoredTextKey = "gpcHonored"

// gpcNoticeTextKey is the notice that the visitor's GPC signal is honoured, which the first
// view's configuration carries only where the signal changes something (GPCPolicy.Honored: the
// runtime shows it only then).
const gpcNoticeTextKey = "gpcNotice"

// OptOutTextKey is the notice's body for a visitor under an opt-out rule, which the
// configuration carries as its body (PublicConfig.textsFor).
const OptOutTextKey = "optOutBody"

// FirstViewTexts returns texts (the runtime's, RuntimeTexts or a configuration's) without the
// preferences' own, as the first view's configuration carries them.
func FirstViewTexts(texts map[string]string) map[string]string {
	out := maps.Clone(texts)
	for _, k := range preferencesTextKeys {
		delete(out, k)
	}
	return out
}

func RuntimeTexts(lang string) map[string]string {
	out := builtinTexts(lang)
	for _, k := range DeclarationTextKeys {
		delete(out, k)
	}
	return out
}

// Texts returns the texts in lang: the built-in ones under the site's (siteTexts).
func (v *SiteView) Texts(lang string) map[string]string {
	out := builtinTexts(lang)
	maps.Copy(out, v.SiteTexts(lang))
	return out
}

// SiteTexts returns the site's own texts in lang: its textOverrides, then its
// textTranslations for lang, then the reopen button's label, each winning over the one before.
func (v *SiteView) SiteTexts(lang string) map[string]string {
	out := maps.Clone(v.Banner.TextOverrides)
	if out == nil {
		out = map[string]string{}
	}
	for l, tr := range v.Banner.TextTranslations {
		if strings.EqualFold(l, lang) {
			maps.Copy(out, tr)
		}
	}
	if v.Banner.ReopenLabel != nil {
		out["reopenLabel"] = *v.Banner.ReopenLabel
	}
	return out
}

// CategoryText returns a category's name and description in lang: the site's translation,
// else for a default category whose text the site left as created, the built-in translation,
// else the site's text.
func CategoryText(c *Category, lang string) (name, desc string) {
	name, desc = Translated(c.NameTranslations, lang, c.Name), Translated(c.DescriptionTranslations, lang, c.Description)
	if !c.IsDefault {
		return name, desc
	}
	for _, d := range DefaultCategories {
		if d.Slug != c.Slug {
			continue
		}
		bn, bd, ok := builtinCategory(lang, c.Slug)
		if !ok {
			break
		}
		if c.NameTranslations[lang] == "" && c.Name == d.Name {
			name = bn
		}
		if c.DescriptionTranslations[lang] == "" && c.Description == d.Description {
			desc = bd
		}
	}
	return name, desc
}
