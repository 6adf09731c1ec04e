package banner

import (
	"maps"
	"slices"

	"github.com/consentd/consentd/core/i18n"
)

// contractTextKeys are the banner texts the API's contract names (textOverrides of the
// banner), listed first in TextKeys.
var contractTextKeys = []string{"headline", "body", "acceptLabel", "rejectLabel", "preferencesLabel", "privacyLabel"}

// textKeys are the contract's texts followed by the runtime's other texts: every key of the
// built-in English texts, sorted. The built-in texts are the one list of what can be said.
func textKeys() []string {
	en, _ := i18n.Texts(defaultLanguage)
	out := slices.Clone(contractTextKeys)
	for _, k := range slices.Sorted(maps.Keys(en)) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// builtinLanguages are the languages consentd speaks without any site translation.
func builtinLanguages() []string { return i18n.Languages() }

// builtinTexts are the runtime's texts in lang, English for what lang lacks.
func builtinTexts(lang string) map[string]string {
	out, _ := i18n.Texts(defaultLanguage)
	if out == nil {
		out = map[string]string{}
	}
	if tr, ok := i18n.Texts(lang); ok {
		maps.Copy(out, tr)
	}
	return out
}

// builtinCategory is the built-in name and description of a default category in lang.
func builtinCategory(lang, slug string) (name, desc string, ok bool) {
	return i18n.Category(lang, slug)
}
