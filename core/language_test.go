package core_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/banner"
	"github.com/consentd/consentd/core/i18n"
)

func TestTextKeysComeFromTheBuiltInTexts(t *testing.T) {
	t.Parallel()
	en, _ := i18n.Texts("en")
	if len(banner.TextKeys()) != len(en) {
		t.Fatalf("%d text keys, %d English texts", len(banner.TextKeys()), len(en))
	}
	for _, k := range []string{"headline", "reopenLabel", "declarationTitle", "storageSession", "privacyPolicyOfLabel"} {
		if !slices.Contains(banner.TextKeys(), k) {
			t.Errorf("TextKeys lack %s", k)
		}
	}
	if banner.TextKeys()[0] != "headline" || banner.TextKeys()[5] != "privacyLabel" {
		t.Errorf("the contract's keys come first: %v", banner.TextKeys()[:6])
	}
}

func TestPublicConfigLanguage(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	de, _ := i18n.Texts("de")
	cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: "DE"}, "de-AT", "en")
	if err != nil || cfg.Lang != "de" || cfg.Texts["headline"] != de["headline"] || cfg.Texts["reopenLabel"] != de["reopenLabel"] {
		t.Fatalf("German visitor: lang %q headline %q (%v)", cfg.Lang, cfg.Texts["headline"], err)
	}
	name, _, _ := i18n.Category("de", "statistics")
	if cfg.Categories[1].Slug != "statistics" || cfg.Categories[1].Name != name {
		t.Errorf("statistics named %q, want %q", cfg.Categories[1].Name, name)
	}
	if len(cfg.Languages) < 24 {
		t.Errorf("languages %v", cfg.Languages)
	}
	if cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{}, "xx", "tlh"); cfg.Lang != "en" {
		t.Errorf("unknown languages give %q, want en", cfg.Lang)
	}
	_, err = m.Banners.PatchBanner(ctx, org, s.ID, banner.BannerPatch{
		TextOverrides:    map[string]string{"body": "Our body", "reopenLabel": "Cookies"},
		TextTranslations: map[string]map[string]string{"de": {"headline": "Unser Titel"}, "ja": {"headline": "見出し"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{Country: "DE"}, "de")
	if cfg.Texts["headline"] != "Unser Titel" || cfg.Texts["body"] != "Our body" || cfg.Texts["acceptLabel"] != de["acceptLabel"] || cfg.Texts["reopenLabel"] != "Cookies" {
		t.Errorf("site texts must win over built-in ones: %v", cfg.Texts)
	}
	if len(cfg.Banner.TextTranslations) != 0 || cfg.Banner.TextOverrides["headline"] != "Unser Titel" || cfg.Banner.TextOverrides["acceptLabel"] != "" {
		t.Errorf("only the chosen language's texts travel, the site's own as textOverrides: %v %v", cfg.Banner.TextOverrides, cfg.Banner.TextTranslations)
	}
	if cfg, _ = m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{}, "ja-JP"); cfg.Lang != "ja" || cfg.Texts["headline"] != "見出し" {
		t.Errorf("a site translation adds its language: %q %q", cfg.Lang, cfg.Texts["headline"])
	}
	d, err := m.PublicBanner.Declaration(ctx, s.ProjectKey, "fr")
	fr, _ := i18n.Texts("fr")
	if err != nil || d.Lang != "fr" || d.Texts["declarationTitle"] != fr["declarationTitle"] || len(d.Categories) != 3 {
		t.Errorf("declaration %+v %v", d, err)
	}
}

func TestDeclarationFollowsServices(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	org, s := mustSite(t, m)
	d, err := m.PublicBanner.Declaration(ctx, s.ProjectKey)
	if err != nil || len(d.Categories[1].Services) != 0 {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := m.Services.ImportService(ctx, org, s.ID, "stats", ""); err != nil {
		t.Fatal(err)
	}
	d, _ = m.PublicBanner.Declaration(ctx, s.ProjectKey)
	sv := d.Categories[1].Services
	if len(sv) != 1 || sv[0].Slug != "stats" || len(sv[0].Cookies) != 1 || sv[0].Cookies[0].Name != "_stats" ||
		sv[0].Cookies[0].Type != "cookie" || sv[0].PrivacyPolicyURL == nil || d.Texts["declarationTitle"] == "" {
		t.Errorf("after an import the declaration lists %+v", sv)
	}
	cfg, _ := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{})
	if _, ok := cfg.Texts["declarationTitle"]; ok {
		t.Error("the runtime's configuration carries the declaration-only texts")
	}
	var rule bool
	for _, r := range cfg.CookieRules {
		rule = rule || (r.Category == "statistics" && r.Name == "_stats" && r.Match == "exact")
	}
	if !rule {
		t.Errorf("cookie rules %+v lack _stats", cfg.CookieRules)
	}
}

// TestLanguageKeys: the one rule of a site's language keys, which the API and the console
// check; the language a visitor asks for is only bounded.
func TestLanguageKeys(t *testing.T) {
	t.Parallel()
	for lang, ok := range map[string]bool{
		"de": true, "fil": true, "pt-BR": true, "zh-Hant-TW": true, "en-us": true, "es-419": true,
		"": false, "d": false, "de_DE": false, "German": false, "de-": false, "-de": false, "de DE": false,
		"de-" + strings.Repeat("a", 9): false, "de" + strings.Repeat("-abcdefgh", 4): false,
	} {
		if banner.ValidLanguage(lang) != ok {
			t.Errorf("ValidLanguage(%q) = %v", lang, !ok)
		}
		if err := banner.CheckLanguage("textTranslations", lang); (err == nil) != ok || (err != nil && core.ErrorCode(err) != core.CodeInvalid) {
			t.Errorf("CheckLanguage(%q) = %v", lang, err)
		}
	}
	if err := banner.CheckPreferredLanguage("lang", "de_DE"); err != nil {
		t.Errorf("a malformed page language is refused: %v", err)
	}
	if err := banner.CheckPreferredLanguage("lang", strings.Repeat("a", banner.MaxLanguageKey+1)); err == nil {
		t.Error("an overlong page language is taken")
	}
}

// TestPublicConfigLanguageVariants: the languages with a script or region (Chinese, Brazilian
// Portuguese) are found from what browsers send, and Arabic and Hebrew travel with dir "rtl".
func TestPublicConfigLanguageVariants(t *testing.T) {
	t.Parallel()
	m, _, _ := newCore(t)
	_, s := mustSite(t, m)
	for _, c := range []struct{ prefs, lang, dir string }{
		{"zh-TW", "zh-hant", ""}, {"zh-HK", "zh-hant", ""}, {"zh-Hant-TW", "zh-hant", ""},
		{"zh-CN", "zh-hans", ""}, {"zh", "zh-hans", ""}, {"pt-BR", "pt-br", ""}, {"pt-PT", "pt", ""},
		{"no", "nb", ""}, {"nb-NO", "nb", ""}, {"ar-EG", "ar", "rtl"}, {"he", "he", "rtl"}, {"iw", "he", "rtl"},
	} {
		cfg, err := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{}, c.prefs)
		if err != nil || cfg.Lang != c.lang || cfg.Dir != c.dir {
			t.Errorf("%s: lang %q dir %q, want %q %q (%v)", c.prefs, cfg.Lang, cfg.Dir, c.lang, c.dir, err)
			continue
		}
		want, _ := i18n.Texts(c.lang)
		if cfg.Texts["acceptLabel"] != want["acceptLabel"] {
			t.Errorf("%s: acceptLabel %q, want %q", c.prefs, cfg.Texts["acceptLabel"], want["acceptLabel"])
		}
		d, err := m.PublicBanner.Declaration(ctx, s.ProjectKey, c.prefs)
		if err != nil || d.Lang != c.lang || d.Dir != c.dir {
			t.Errorf("%s: declaration lang %q dir %q (%v)", c.prefs, d.Lang, d.Dir, err)
		}
	}
	cfg, _ := m.PublicBanner.PublicConfig(ctx, s.ProjectKey, core.Location{}, "en")
	if !slices.Contains(cfg.Languages, "zh-hant") || !slices.Contains(cfg.Languages, "pt-br") || len(cfg.Languages) < 40 {
		t.Errorf("languages %v: want the 40 built-in ones, lower case", cfg.Languages)
	}
}
