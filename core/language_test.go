package core_test

import (
	"slices"
	"testing"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/i18n"
)

func TestTextKeysComeFromTheBuiltInTexts(t *testing.T) {
	t.Parallel()
	en, _ := i18n.Texts("en")
	if len(core.TextKeys) != len(en) {
		t.Fatalf("%d text keys, %d English texts", len(core.TextKeys), len(en))
	}
	for _, k := range []string{"headline", "reopenLabel", "declarationTitle", "storageSession", "privacyPolicyOfLabel"} {
		if !slices.Contains(core.TextKeys, k) {
			t.Errorf("TextKeys lack %s", k)
		}
	}
	if core.TextKeys[0] != "headline" || core.TextKeys[5] != "privacyLabel" {
		t.Errorf("the contract's keys come first: %v", core.TextKeys[:6])
	}
}

func TestPublicConfigLanguage(t *testing.T) {
	t.Parallel()
	m, _, _ := newManager(t)
	org, s := mustSite(t, m)
	de, _ := i18n.Texts("de")
	cfg, err := m.Consents.PublicConfig(ctx, s.ProjectKey, "DE", "de-AT", "en")
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
	if cfg, _ = m.Consents.PublicConfig(ctx, s.ProjectKey, "", "xx", "tlh"); cfg.Lang != "en" {
		t.Errorf("unknown languages give %q, want en", cfg.Lang)
	}
	_, err = m.Banners.PatchBanner(ctx, org, s.ID, core.BannerPatch{
		TextOverrides:    map[string]string{"body": "Our body", "reopenLabel": "Cookies"},
		TextTranslations: map[string]map[string]string{"de": {"headline": "Unser Titel"}, "ja": {"headline": "見出し"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ = m.Consents.PublicConfig(ctx, s.ProjectKey, "DE", "de")
	if cfg.Texts["headline"] != "Unser Titel" || cfg.Texts["body"] != "Our body" || cfg.Texts["acceptLabel"] != de["acceptLabel"] || cfg.Texts["reopenLabel"] != "Cookies" {
		t.Errorf("site texts must win over built-in ones: %v", cfg.Texts)
	}
	if cfg, _ = m.Consents.PublicConfig(ctx, s.ProjectKey, "", "ja-JP"); cfg.Lang != "ja" || cfg.Texts["headline"] != "見出し" {
		t.Errorf("a site translation adds its language: %q %q", cfg.Lang, cfg.Texts["headline"])
	}
	d, err := m.Consents.Declaration(ctx, s.ProjectKey, "fr")
	fr, _ := i18n.Texts("fr")
	if err != nil || d.Lang != "fr" || d.Texts["declarationTitle"] != fr["declarationTitle"] || len(d.Categories) != 3 {
		t.Errorf("declaration %+v %v", d, err)
	}
}
