package core

// builtinLanguages, builtinTexts and builtinCategory give the built-in translations. Until
// package i18n is merged they know no language.
func builtinLanguages() []string { return []string{"en"} }

func builtinTexts(string) map[string]string { return map[string]string{} }

func builtinCategory(string, string) (string, string, bool) { return "", "", false }
