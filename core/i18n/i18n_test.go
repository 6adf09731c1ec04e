package i18n

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// official are the 24 official languages of the EU, which consentd ships, and builtin all the
// languages it ships (docs/languages.md lists which want a native speaker's review).
var official = []string{"bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "ga", "hr",
	"hu", "it", "lt", "lv", "mt", "nl", "pl", "pt", "ro", "sk", "sl", "sv"}

var builtin = []string{"ar", "bg", "ca", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "ga",
	"he", "hr", "hu", "id", "is", "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb", "nl", "pl", "pt",
	"pt-BR", "ro", "ru", "sk", "sl", "sr", "sv", "tr", "uk", "zh-Hans", "zh-Hant"}

// english is the source every translation is made from; en.json must hold exactly this.
var english = map[string]string{
	"headline":             "We value your privacy",
	"body":                 "We use cookies and similar technologies to run this site, to measure how it is used and to personalise ads. Choose which categories you allow; you can change your mind at any time.",
	"optOutBody":           "We use cookies and similar technologies to run this site, to measure how it is used and to personalise ads. You can opt out of those that are not needed at any time.",
	"acceptLabel":          "Accept all",
	"rejectLabel":          "Reject all",
	"preferencesLabel":     "Preferences",
	"privacyLabel":         "Privacy policy",
	"cookiePolicyLabel":    "Cookie policy",
	"saveLabel":            "Save choices",
	"closeLabel":           "Close",
	"preferencesTitle":     "Privacy preferences",
	"preferencesBody":      "Choose which cookies we may use. Required cookies keep the site working and cannot be switched off.",
	"alwaysOnLabel":        "Always active",
	"servicesLabel":        "Services and cookies",
	"cookieLabel":          "Cookie",
	"durationLabel":        "Duration",
	"purposeLabel":         "Purpose",
	"doNotSellLabel":       "Do Not Sell or Share My Personal Information",
	"gpcHonored":           "Opt-Out Request Honored",
	"gpcNotice":            "Your browser sent a Global Privacy Control signal: we do not sell or share your personal data, so marketing stays off.",
	"blockedText":          "{service} is blocked until you allow {category} cookies.",
	"allowLabel":           "Allow {category}",
	"reopenLabel":          "Privacy settings",
	"declarationTitle":     "Cookie declaration",
	"declarationIntro":     "This website uses cookies and similar technologies. Below you find every category, the services in it and the cookies they set, with how long each is kept and why.",
	"yourChoiceLabel":      "Your current choice",
	"consentDateLabel":     "Given on",
	"consentIdLabel":       "Consent ID",
	"noChoiceYet":          "You have not made a choice yet.",
	"changeConsentLabel":   "Change your consent",
	"withdrawConsentLabel": "Withdraw consent",
	"allowedLabel":         "Allowed",
	"notAllowedLabel":      "Not allowed",
	"providerLabel":        "Provider",
	"privacyPolicyOfLabel": "Privacy policy of {service}",
	"sessionDuration":      "Session",
	"noServicesLabel":      "No services in this category.",
	"lastUpdatedLabel":     "Last updated",
	"categoryLabel":        "Category",
	"typeLabel":            "Type",
	"storageCookie":        "Cookie",
	"storageLocal":         "Local storage",
	"storageSession":       "Session storage",
	"ownCookieDescription": "Remembers your consent choices on this site: which categories you allowed, when, and the ID of the consent record.",
	"prefixCookieNote":     "A name ending in * stands for several cookies whose names begin that way; the service adds an identifier in place of the *.",
}

// textOrder is the order of the keys of "texts" in every file, so that files diff line by line.
var textOrder = []string{"headline", "body", "optOutBody", "acceptLabel", "rejectLabel", "preferencesLabel",
	"privacyLabel", "cookiePolicyLabel", "saveLabel", "closeLabel", "preferencesTitle",
	"preferencesBody", "alwaysOnLabel", "servicesLabel", "cookieLabel", "durationLabel",
	"purposeLabel", "gpcNotice", "blockedText", "allowLabel", "reopenLabel", "doNotSellLabel", "gpcHonored", "declarationTitle",
	"declarationIntro", "yourChoiceLabel", "consentDateLabel", "consentIdLabel", "noChoiceYet",
	"changeConsentLabel", "withdrawConsentLabel", "allowedLabel", "notAllowedLabel",
	"providerLabel", "privacyPolicyOfLabel", "sessionDuration", "noServicesLabel",
	"lastUpdatedLabel", "categoryLabel", "typeLabel", "storageCookie", "storageLocal",
	"storageSession", "ownCookieDescription", "prefixCookieNote"}

var slugs = []string{"essential", "statistics", "marketing"}

var englishCategories = map[string][2]string{
	"essential":  {"Essential", "Needed for the website to work: security, load balancing, remembering your choices. These cannot be switched off."},
	"statistics": {"Statistics", "Help us understand how visitors use the website by collecting information anonymously or in aggregate."},
	"marketing":  {"Marketing", "Used to show relevant advertising and to measure campaigns, often across websites."},
}

var endonyms = map[string]string{
	"bg": "Български", "cs": "Čeština", "da": "Dansk", "de": "Deutsch", "el": "Ελληνικά",
	"en": "English", "es": "Español", "et": "Eesti", "fi": "Suomi", "fr": "Français",
	"ga": "Gaeilge", "hr": "Hrvatski", "hu": "Magyar", "it": "Italiano", "lt": "Lietuvių",
	"lv": "Latviešu", "mt": "Malti", "nl": "Nederlands", "pl": "Polski", "pt": "Português",
	"ro": "Română", "sk": "Slovenčina", "sl": "Slovenščina", "sv": "Svenska",
	"ar": "العربية", "ca": "Català", "he": "עברית", "id": "Bahasa Indonesia", "is": "Íslenska",
	"ja": "日本語", "ko": "한국어", "ms": "Bahasa Melayu", "nb": "Norsk bokmål",
	"pt-BR": "Português (Brasil)", "ru": "Русский", "sr": "Српски", "tr": "Türkçe",
	"uk": "Українська", "zh-Hans": "简体中文", "zh-Hant": "繁體中文",
}

// sameAsEnglish lists the only texts a translation may leave identical to the English one:
// words that are genuinely the same in that language, by language.
var sameAsEnglish = map[string][]string{
	"Cookie":    {"da", "de", "el", "es", "fr", "id", "it", "ja", "mt", "nl", "pt", "pt-BR", "ro", "zh-Hans", "zh-Hant"},
	"Marketing": {"de", "es", "fr", "hu", "it", "nl", "pt", "pt-BR", "ro"},
	"Session":   {"da", "fr", "sv"},
	"Type":      {"da", "fr", "nb", "nl"},
}

func TestEmbeddedFilesParse(t *testing.T) {
	if loadErr != nil {
		t.Fatalf("embedded locale files: %v", loadErr)
	}
	if got := Languages(); !slices.Equal(got, builtin) {
		t.Fatalf("Languages() = %v, want %v", got, builtin)
	}
	for _, l := range official {
		if !slices.Contains(builtin, l) {
			t.Errorf("official EU language %s is not built in", l)
		}
	}
}

func TestEnglishIsTheSource(t *testing.T) {
	texts, ok := Texts("en")
	if !ok {
		t.Fatal("no English")
	}
	if !maps.Equal(texts, english) {
		for k, want := range english {
			if texts[k] != want {
				t.Errorf("en %s = %q, want %q", k, texts[k], want)
			}
		}
		for k := range texts {
			if _, ok := english[k]; !ok {
				t.Errorf("en has extra key %s", k)
			}
		}
	}
	for slug, want := range englishCategories {
		name, desc, ok := Category("en", slug)
		if !ok || name != want[0] || desc != want[1] {
			t.Errorf("en category %s = %q, %q, %v; want %q, %q", slug, name, desc, ok, want[0], want[1])
		}
	}
	if len(textOrder) != len(english) {
		t.Fatalf("textOrder has %d keys, english %d", len(textOrder), len(english))
	}
}

func TestEveryLanguageIsComplete(t *testing.T) {
	for _, lang := range builtin {
		texts, ok := Texts(lang)
		if !ok {
			t.Errorf("%s: missing", lang)
			continue
		}
		for k := range english {
			if _, ok := texts[k]; !ok {
				t.Errorf("%s: missing text %s", lang, k)
			}
		}
		for k, v := range texts {
			if _, ok := english[k]; !ok {
				t.Errorf("%s: extra text %s", lang, k)
			}
			checkText(t, lang, k, v)
		}
		for _, slug := range slugs {
			name, desc, ok := Category(lang, slug)
			if !ok || name == "" || desc == "" {
				t.Errorf("%s: category %s = %q, %q, %v; want a name and a description", lang, slug, name, desc, ok)
			}
			checkText(t, lang, slug+".name", name)
			checkText(t, lang, slug+".description", desc)
		}
		if n := len(locales[strings.ToLower(lang)].Categories); n != len(slugs) {
			t.Errorf("%s: %d categories, want exactly %v", lang, n, slugs)
		}
		if got, want := Name(lang), endonyms[lang]; got != want {
			t.Errorf("Name(%q) = %q, want %q", lang, got, want)
		}
	}
}

// checkText catches what slips in when texts are pasted: stray spaces and invisible characters
// (the no-break space French typography puts before ; : ! ? and inside « » is allowed).
func checkText(t *testing.T, lang, key, v string) {
	t.Helper()
	if strings.TrimSpace(v) != v || strings.Contains(v, "  ") || strings.ContainsAny(v, "\t\n\r\u200b\ufeff\u00ad") {
		t.Errorf("%s %s: stray whitespace or invisible character in %q", lang, key, v)
	}
	if lang != "fr" && strings.Contains(v, "\u00a0") {
		t.Errorf("%s %s: no-break space in %q", lang, key, v)
	}
	// Romanian is written with ș and ț (comma below), not the Turkish ş and ţ (cedilla).
	if lang == "ro" && strings.ContainsAny(v, "şţŞŢ") {
		t.Errorf("ro %s: cedilla ş/ţ instead of comma-below ș/ț in %q", key, v)
	}
}

var placeholderRegex = regexp.MustCompile(`\{[^{}]*\}`)

func placeholders(s string) []string {
	p := placeholderRegex.FindAllString(s, -1)
	slices.Sort(p)
	return slices.Compact(p)
}

func TestPlaceholdersAreKept(t *testing.T) {
	for _, lang := range builtin {
		texts, _ := Texts(lang)
		for k, en := range english {
			if got, want := placeholders(texts[k]), placeholders(en); !slices.Equal(got, want) {
				t.Errorf("%s %s: placeholders %v, want %v (in %q)", lang, k, got, want, texts[k])
			}
			if strings.Count(texts[k], "{") != strings.Count(texts[k], "}") {
				t.Errorf("%s %s: unbalanced braces in %q", lang, k, texts[k])
			}
		}
		for _, slug := range slugs {
			name, desc, _ := Category(lang, slug)
			if strings.ContainsAny(name+desc, "{}") {
				t.Errorf("%s category %s: braces in %q / %q", lang, slug, name, desc)
			}
		}
	}
}

func TestNothingIsLeftInEnglish(t *testing.T) {
	allowed := func(lang, text string) bool { return slices.Contains(sameAsEnglish[text], lang) }
	for _, lang := range builtin {
		if lang == "en" {
			continue
		}
		texts, _ := Texts(lang)
		for k, en := range english {
			if texts[k] == en && !allowed(lang, en) {
				t.Errorf("%s %s: still English: %q", lang, k, en)
			}
		}
		for slug, en := range englishCategories {
			name, desc, _ := Category(lang, slug)
			if name == en[0] && !allowed(lang, en[0]) {
				t.Errorf("%s category %s name: still English: %q", lang, slug, name)
			}
			if desc == en[1] {
				t.Errorf("%s category %s description: still English", lang, slug)
			}
		}
	}
	// Keep the allow-list honest: every entry must still be needed.
	for text, langs := range sameAsEnglish {
		for _, lang := range langs {
			texts, _ := Texts(lang)
			used := slices.Contains(slices.Collect(maps.Values(texts)), text)
			for _, slug := range slugs {
				name, _, _ := Category(lang, slug)
				used = used || name == text
			}
			if !used {
				t.Errorf("sameAsEnglish[%q] lists %s, which no longer uses it", text, lang)
			}
		}
	}
}

// TestFilesAreCanonical keeps every file in the one layout translators and reviewers expect:
// 2-space indentation, a final newline, and the keys in the same order as en.json.
func TestFilesAreCanonical(t *testing.T) {
	for _, lang := range builtin {
		b, err := fs.ReadFile(files, "locales/"+lang+".json")
		if err != nil {
			t.Fatal(err)
		}
		var compact, indented bytes.Buffer
		if err := json.Compact(&compact, b); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		indented.WriteByte('\n')
		if !bytes.Equal(b, indented.Bytes()) {
			t.Errorf("%s.json is not 2-space indented JSON ending in a newline", lang)
		}
		top, texts, cats := keyOrder(t, b)
		if want := []string{"language", "texts", "categories"}; !slices.Equal(top, want) {
			t.Errorf("%s.json: top-level keys %v, want %v", lang, top, want)
		}
		if !slices.Equal(texts, textOrder) {
			t.Errorf("%s.json: text keys out of order: %v", lang, texts)
		}
		if !slices.Equal(cats, slugs) {
			t.Errorf("%s.json: categories %v, want %v", lang, cats, slugs)
		}
	}
}

// keyOrder returns, in file order, the top-level keys, the keys of "texts" and those of
// "categories".
func keyOrder(t *testing.T, b []byte) (top, texts, cats []string) {
	t.Helper()
	var raw struct {
		Texts      json.RawMessage `json:"texts"`
		Categories json.RawMessage `json:"categories"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return objectKeys(t, b), objectKeys(t, raw.Texts), objectKeys(t, raw.Categories)
}

func objectKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %v %v", tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestMalformedFileCostsOnlyItsLanguage(t *testing.T) {
	fsys := fstest.MapFS{
		"locales/de.json":     {Data: []byte(`{"language": "Deutsch", "texts": {"closeLabel": "Schließen"}}`)},
		"locales/fr.json":     {Data: []byte(`{"language": "Français", "texts": {"closeLabel": "Fermer",}}`)},
		"locales/it.json":     {Data: []byte(`{"language": "Italiano", "text": {"closeLabel": "Chiudi"}}`)},
		"locales/es.json":     {Data: []byte(`{"language": "Español", "texts": {"closeLabel": "Cerrar"}} {}`)},
		"locales/pt_BR.json":  {Data: []byte(`{"language": "Português", "texts": {"closeLabel": "Fechar"}}`)},
		"locales/README.md":   {Data: []byte(`not a locale`)},
		"locales/nested/x.js": {Data: []byte(`ignored`)},
	}
	got, codes, err := load(fsys, "locales")
	if err == nil {
		t.Fatal("load reported no error for malformed files")
	}
	for _, bad := range []string{"fr.json", "it.json", "es.json", "pt_BR.json"} {
		if !strings.Contains(err.Error(), bad) {
			t.Errorf("error does not name %s: %v", bad, err)
		}
	}
	if !slices.Equal(codes, []string{"de"}) || got["de"].Texts["closeLabel"] != "Schließen" {
		t.Errorf("load kept %v, want only de", codes)
	}
	if _, _, err := load(fstest.MapFS{}, "locales"); err == nil {
		t.Error("load of a missing directory reported no error")
	}
}

func TestAbsentLanguage(t *testing.T) {
	if texts, ok := Texts("xx"); ok || texts != nil {
		t.Errorf("Texts(xx) = %v, %v", texts, ok)
	}
	if _, _, ok := Category("xx", "essential"); ok {
		t.Error("Category(xx, essential) ok")
	}
	if _, _, ok := Category("de", "nonexistent"); ok {
		t.Error("Category(de, nonexistent) ok")
	}
	if Name("xx") != "" || Name("de-XX") != "" {
		t.Error("Name of an unknown code is not empty")
	}
}

func TestTextsReturnsACopy(t *testing.T) {
	a, _ := Texts("de")
	a["closeLabel"] = "changed"
	if b, _ := Texts("de"); b["closeLabel"] != "Schließen" {
		t.Errorf("Texts shares its map: closeLabel = %q", b["closeLabel"])
	}
	l := Languages()
	l[0] = "changed"
	if Languages()[0] != "ar" {
		t.Error("Languages shares its slice")
	}
}

func TestParseAcceptLanguage(t *testing.T) {
	tests := []struct {
		header string
		want   []string
	}{
		{"", nil},
		{"de", []string{"de"}},
		{"de-AT,de;q=0.9,en;q=0.8", []string{"de-AT", "de", "en"}},
		{"en;q=0.5, fr-CH, fr;q=0.9, de;q=0.7, *;q=0.5", []string{"fr-CH", "fr", "de", "en"}},
		{"da, en-gb;q=0.8, en;q=0.7", []string{"da", "en-gb", "en"}},
		// Equal q keeps the header's order.
		{"it;q=0.5,es;q=0.5,pt;q=0.5", []string{"it", "es", "pt"}},
		{"sv,fi,nl", []string{"sv", "fi", "nl"}},
		// q=0 means "not acceptable".
		{"fr;q=0, de", []string{"de"}},
		{"fr;q=0.000, de;q=0.001", []string{"de"}},
		{"fr;Q=0.3, de;q=1.0", []string{"de", "fr"}},
		{"fr ; q = 0.3 , de", []string{"de", "fr"}},
		// Malformed entries are skipped, not guessed at.
		{"fr;q=abc, de;q=2, es;q=-1, it;q=NaN, pl;q=0x1p-1, cs", []string{"cs"}},
		{",,, ;q=0.5, de", []string{"de"}},
		{"de_DE, de-DE, 1de, de--x, toolongtag-x", []string{"de-DE"}},
		{"zh-Hant-TW;q=0.8, x-klingon;q=0.9", []string{"x-klingon", "zh-Hant-TW"}},
		{"en;level=1;q=0.4, ro", []string{"ro", "en"}},
		{"*", nil},
	}
	for _, tt := range tests {
		if got := ParseAcceptLanguage(tt.header); !slices.Equal(got, tt.want) {
			t.Errorf("ParseAcceptLanguage(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

func TestCandidates(t *testing.T) {
	for _, c := range []struct {
		tag  string
		want []string
	}{
		{"de", []string{"de"}},
		{"de-AT", []string{"de-at", "de"}},
		{"pt-BR", []string{"pt-br", "pt"}},
		{"zh-TW", []string{"zh-tw", "zh-hant", "zh", "zh-hans"}},
		{"zh-HK", []string{"zh-hk", "zh-hant", "zh", "zh-hans"}},
		{"zh-CN", []string{"zh-cn", "zh-hans", "zh", "zh-hans"}},
		{"zh-Hant-TW", []string{"zh-hant-tw", "zh-hant", "zh", "zh-hans"}},
		{"no", []string{"no", "nb"}},
		{"nn-NO", []string{"nn-no", "nn", "nb"}},
		{"iw", []string{"iw", "he"}},
		{" ", nil},
	} {
		if got := Candidates(c.tag); !slices.Equal(got, c.want) {
			t.Errorf("Candidates(%q) = %q, want %q", c.tag, got, c.want)
		}
	}
	// Every alias names a built-in language.
	for from, to := range aliases {
		if _, ok := Texts(to); !ok {
			t.Errorf("alias %s -> %s: not built in", from, to)
		}
	}
}

func TestRightToLeft(t *testing.T) {
	for tag, want := range map[string]bool{"ar": true, "he": true, "ar-EG": true, "fa": true, "ur-PK": true, "IW": true,
		"en": false, "de-AT": false, "zh-Hant": false, "ku-Latn": false, "ckb": true, "ar-Latn": false, "": false} {
		if got := RightToLeft(tag); got != want {
			t.Errorf("RightToLeft(%q) = %v, want %v", tag, got, want)
		}
	}
	// Of the built-in languages exactly Arabic and Hebrew are written right to left.
	var rtl []string
	for _, l := range Languages() {
		if RightToLeft(l) {
			rtl = append(rtl, l)
		}
	}
	if !slices.Equal(rtl, []string{"ar", "he"}) {
		t.Errorf("right-to-left built-in languages %v, want [ar he]", rtl)
	}
}

func TestLookupIgnoresCase(t *testing.T) {
	a, _ := Texts("pt-BR")
	b, ok := Texts("PT-br")
	if !ok || a["acceptLabel"] != b["acceptLabel"] || a["acceptLabel"] == "" {
		t.Errorf("Texts is case-sensitive: %q %q", a["acceptLabel"], b["acceptLabel"])
	}
	if Name("zh-hant") != "繁體中文" {
		t.Errorf("Name(zh-hant) = %q", Name("zh-hant"))
	}
	if _, _, ok := Category("ZH-HANS", "marketing"); !ok {
		t.Error("Category is case-sensitive")
	}
}
