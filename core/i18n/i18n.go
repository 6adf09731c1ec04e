// Package i18n holds the texts consentd ships in its built-in languages (the 24 official EU
// languages and 16 more, listed in docs/languages.md): the banner runtime's texts and the default names and descriptions of the essential, statistics and
// marketing categories. Each language is one data file, locales/<code>.json, embedded in the
// binary, so that translators edit data and never code.
//
// The files are parsed once, when the package is initialised. A file that does not parse is
// not fatal: that language behaves as if it were absent, and the error is kept for the
// package's tests, which fail on it, so a broken file never reaches a release.
package i18n

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

//go:embed locales/*.json
var files embed.FS

// locale is the shape of one locales/<code>.json file.
type locale struct {
	Language   string                  `json:"language"`
	Texts      map[string]string       `json:"texts"`
	Categories map[string]categoryText `json:"categories"`
}

type categoryText struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

var (
	// locales are keyed by their code in lower case (BCP 47 tags are case-insensitive).
	locales map[string]*locale
	// codes are the codes as the files are named ("de", "pt-BR", "zh-Hant"), sorted.
	codes []string
	// loadErr is every problem found while parsing the embedded files; nil when all parsed.
	loadErr error
)

func init() {
	locales, codes, loadErr = load(files, "locales")
}

// codeRegex is what a locale file's base name must be: a lower-case ISO 639-1 code, alone or
// with a region ("pt-BR") or a script ("zh-Hant") subtag in its canonical case (BCP 47).
var codeRegex = regexp.MustCompile(`^[a-z]{2}(-[A-Z]{2}|-[A-Z][a-z]{3})?$`)

// load parses every dir/*.json file of fsys. A file that cannot be read or parsed is left
// out, and its error joined into the returned error, so that one bad file costs one language,
// not the process.
func load(fsys fs.FS, dir string) (map[string]*locale, []string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return map[string]*locale{}, nil, fmt.Errorf("i18n: %w", err)
	}
	out := map[string]*locale{}
	var names []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || path.Ext(name) != ".json" {
			continue
		}
		code := strings.TrimSuffix(name, ".json")
		if !codeRegex.MatchString(code) {
			errs = append(errs, fmt.Errorf("i18n: %s: file name is not a two-letter language code", name))
			continue
		}
		l, err := parse(fsys, path.Join(dir, name))
		if err != nil {
			errs = append(errs, fmt.Errorf("i18n: %s: %w", name, err))
			continue
		}
		out[strings.ToLower(code)] = l
		names = append(names, code)
	}
	slices.Sort(names)
	return out, names, errors.Join(errs...)
}

func parse(fsys fs.FS, name string) (*locale, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l locale
	if err := dec.Decode(&l); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON object")
	}
	if l.Language == "" || len(l.Texts) == 0 {
		return nil, errors.New(`"language" and "texts" are required`)
	}
	return &l, nil
}

// Languages returns the codes of the built-in languages (ISO 639-1 codes, some with a region
// or script subtag: "pt-BR", "zh-Hans"), sorted. The caller owns the returned slice. The other
// functions take a code in any case.
func Languages() []string {
	return slices.Clone(codes)
}

// Texts returns a copy of the runtime texts of lang, keyed as core.TextKeys() and the
// runtime's other text keys; ok is false when lang is not built in. lang is a code as
// returned by Languages or Match.
func Texts(lang string) (texts map[string]string, ok bool) {
	l, ok := locales[strings.ToLower(lang)]
	if !ok {
		return nil, false
	}
	return maps.Clone(l.Texts), true
}

// Category returns the default name and description, in lang, of the category with the
// given slug ("essential", "statistics" or "marketing"); ok is false when either is unknown.
func Category(lang, slug string) (name, description string, ok bool) {
	l, ok := locales[strings.ToLower(lang)]
	if !ok {
		return "", "", false
	}
	c, ok := l.Categories[slug]
	if !ok {
		return "", "", false
	}
	return c.Name, c.Description, true
}

// Name returns the name lang gives itself (its endonym, such as "Deutsch" or "Gaeilge"),
// or "" when lang is not built in.
func Name(lang string) string {
	if l, ok := locales[strings.ToLower(lang)]; ok {
		return l.Language
	}
	return ""
}

// rtlLanguages are the primary language subtags of languages written right to left (in their
// usual script): Arabic, Hebrew (and its old code iw), Persian, Urdu, Pashto, Yiddish, Dhivehi,
// Central Kurdish, Sindhi and Uyghur.
var rtlLanguages = []string{"ar", "ckb", "dv", "fa", "he", "iw", "ps", "sd", "ug", "ur", "yi"}

// RightToLeft reports whether text in lang (any BCP 47 tag, built in or a site's) is laid out
// right to left: by its primary subtag, unless a script subtag names a left-to-right script
// ("ku-Latn" is not, "ur" is).
func RightToLeft(lang string) bool {
	subs := strings.Split(strings.ToLower(lang), "-")
	if !slices.Contains(rtlLanguages, subs[0]) {
		return false
	}
	for _, s := range subs[1:] {
		if len(s) == 4 { // a script
			return s == "arab" || s == "hebr" || s == "thaa" || s == "syrc"
		}
	}
	return true
}

// aliases are the built-in language a visitor's tag stands for when neither it nor a
// truncation of it is spoken: Chinese by region to its script (browsers send zh-CN, zh-TW,
// rarely zh-Hans), Norwegian to Bokmål, and the deprecated codes of Hebrew and Indonesian.
var aliases = map[string]string{
	"zh": "zh-hans", "zh-cn": "zh-hans", "zh-sg": "zh-hans", "zh-my": "zh-hans",
	"zh-tw": "zh-hant", "zh-hk": "zh-hant", "zh-mo": "zh-hant",
	"no": "nb", "nn": "nb", "iw": "he", "in": "id",
}

// Candidates returns, lower case and best first, the language keys a visitor's tag may be
// served in: the tag, then each shorter prefix of it (RFC 4647 lookup: "zh-hant-tw",
// "zh-hant", "zh"), each followed by its alias where it has one ("zh-tw" stands for "zh-hant").
// A site's own translation under the visitor's exact tag thus wins over a built-in language.
func Candidates(tag string) []string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	var out []string
	for tag != "" {
		out = append(out, tag)
		if a, ok := aliases[tag]; ok {
			out = append(out, a)
		}
		i := strings.LastIndex(tag, "-")
		if i < 0 {
			break
		}
		tag = tag[:i]
	}
	return out
}

// ParseAcceptLanguage returns the language tags of an HTTP Accept-Language header, most
// preferred first: ordered by quality value, keeping the header's order among equal values.
// Tags with q=0 (not acceptable), the wildcard "*" and malformed entries are left out. The
// tags are returned as written.
func ParseAcceptLanguage(header string) []string {
	type entry struct {
		tag string
		q   float64
	}
	var entries []entry
	for part := range strings.SplitSeq(header, ",") {
		tag, params, _ := strings.Cut(part, ";")
		tag = strings.TrimSpace(tag)
		if tag == "" || tag == "*" || !validTag(tag) {
			continue
		}
		q, ok := quality(params)
		if !ok || q == 0 {
			continue
		}
		entries = append(entries, entry{tag, q})
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].q > entries[j].q })
	tags := make([]string, len(entries))
	for i, e := range entries {
		tags[i] = e.tag
	}
	return tags
}

// validTag reports whether s has the shape of a language range of RFC 4647: subtags of 1 to
// 8 ASCII letters or digits, separated by hyphens, the first letters only.
func validTag(s string) bool {
	for i, sub := range strings.Split(s, "-") {
		if len(sub) < 1 || len(sub) > 8 {
			return false
		}
		for _, r := range sub {
			isLetter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
			if !isLetter && (i == 0 || r < '0' || r > '9') {
				return false
			}
		}
	}
	return true
}

// qvalueRegex is a quality value's syntax (RFC 9110 section 12.4.2, leniently allowing more
// than three decimals); it also keeps out what strconv.ParseFloat would accept, such as "NaN".
var qvalueRegex = regexp.MustCompile(`^[01](\.[0-9]*)?$`)

// quality returns the q parameter of an Accept-Language entry's parameters ("" means 1).
// ok is false when q is present but not a number from 0 to 1.
func quality(params string) (q float64, ok bool) {
	q = 1
	if strings.TrimSpace(params) == "" {
		return q, true
	}
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		if !qvalueRegex.MatchString(v) {
			return 0, false
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f > 1 {
			return 0, false
		}
		q = f
	}
	return q, true
}
