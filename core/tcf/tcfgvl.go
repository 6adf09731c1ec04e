package tcf

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/consentd/consentd/core"
)

// The Global Vendor List's life on the server (docs/tcf.md): the IAB publishes it (and its
// translations) with Cache-Control; TCF.RefreshGVL, run by a periodic job, asks again only once
// what it has expired, and keeps every version it saw in the store, so that the runtime is
// served the latest from consentd's own origin and a consent record names the list it was
// decided under. storedLists reads them back for the use cases (VendorLists).

// GVLResourceList is the name of the GVL itself among the IAB's resources; the translations
// are GVLTranslationResource(lang).
const GVLResourceList = "vendor-list"

// GVLTranslationResource names the IAB's translation of the GVL's texts into lang
// (purposes-<lang>.json).
func GVLTranslationResource(lang string) string { return "purposes-" + strings.ToLower(lang) }

// gvlLanguages are the languages the IAB translates the GVL's texts into (besides English):
// https://register.consensu.org/translations/translationsEu, ISO 639-1 codes, with a script or
// region where the IAB publishes more than one (pt-br and pt-pt, sr-cyrl and sr-latn for GVL v3;
// the plain pt and sr of earlier lists are still asked for). docs/tcf.md says which built-in
// languages have one.
var gvlLanguages = [...]string{"ar", "bg", "bs", "ca", "cs", "cy", "da", "de", "el", "es", "et", "eu", "fi", "fr", "gl", "he",
	"hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "mk", "ms", "mt", "nl", "no", "pl", "pt", "pt-br", "pt-pt", "ro", "ru", "sk",
	"sl", "sr", "sr-cyrl", "sr-latn", "sv", "tl", "tr", "uk", "zh"}

// iabLanguages are the IAB translations a built-in language (core/i18n, lower case) takes,
// best first, where they are not the language itself and then its primary subtag: Norwegian
// Bokmål is the IAB's "no", Serbian (written in Cyrillic) its "sr-cyrl", Portuguese (of
// Portugal) its "pt-pt", simplified Chinese its "zh". Traditional Chinese takes none: the
// IAB's Chinese is in simplified characters, so the layers show the IAB's English wording
// rather than mix the two scripts.
var iabLanguages = map[string][]string{
	"nb": {"nb", "no"}, "pt": {"pt-pt", "pt"}, "pt-br": {"pt-br", "pt"}, "sr": {"sr-cyrl", "sr"},
	"zh-hans": {"zh-hans", "zh"}, "zh-hant": {},
}

// IABLanguages returns the IAB translations that may give lang's texts, best first: those of
// iabLanguages, else lang and its primary subtag ("fr-be", "fr"). None for English.
func IABLanguages(lang string) []string {
	lang = strings.ToLower(lang)
	if l, ok := iabLanguages[lang]; ok {
		return slices.Clone(l)
	}
	base, _, _ := strings.Cut(lang, "-")
	if base == "en" || lang == "" {
		return nil
	}
	if base == lang {
		return []string{lang}
	}
	return []string{lang, base}
}

// GVLLanguages returns the languages RefreshGVL asks the IAB's translations of; a language the
// IAB does not publish is skipped.
func GVLLanguages() []string { return slices.Clone(gvlLanguages[:]) }

// GVLFetch is one answer of the GVL's source for one resource, and what the store keeps of it
// to ask again (GVLStore.GVLFetchState): its validators and until when it is fresh.
type GVLFetch struct {
	// Body is the resource as published (decompressed); nil when NotModified or when read
	// back from the store.
	Body        []byte
	NotModified bool
	// ETag and LastModified are the answer's validators, for a conditional request.
	ETag         string
	LastModified string
	// Expires is until when the answer may be used without asking again: its Cache-Control
	// max-age (the IAB requires exactly that); zero when it may not be reused.
	Expires time.Time
	// CheckedAt is when the source was last asked.
	CheckedAt time.Time
}

// GVLSource is where the GVL comes from: the IAB's server (adapters/iabgvl.Client) or a file
// (iabgvl.File, CONSENTD_TCF_GVL_FILE).
type GVLSource interface {
	// FetchGVLResource fetches the resource name (GVLResourceList or a
	// GVLTranslationResource), conditionally on prev's validators when prev is not nil;
	// not_found when the source has no such resource. Other errors are temporary: the
	// refresh fails and its job is retried.
	FetchGVLResource(ctx context.Context, name string, prev *GVLFetch) (*GVLFetch, error)
}

// StoredGVL is a version of the GVL (Language "") or of one of its translations, as published,
// or of Google's Additional Consent provider list (Language ACProvidersResource). A translation
// is filed under the GVL version current when it was fetched; Google's list, which has no
// version of its own, is numbered 1, 2, … as it changes (its LastUpdated is when it was
// fetched).
type StoredGVL struct {
	Version     int
	Language    string
	LastUpdated time.Time
	FetchedAt   time.Time
	Body        []byte
}

// GVLStore keeps every GVL version consentd used, and what it knows of each resource's
// freshness at the source.
type GVLStore interface {
	// SaveGVL stores v unless that version and language is stored already, which then stays
	// as it is (the first copy is the one records were decided under).
	SaveGVL(ctx context.Context, v *StoredGVL) error
	// StoredGVL returns a version of the GVL (lang "") or of a translation; not_found.
	StoredGVL(ctx context.Context, version int, lang string) (*StoredGVL, error)
	// LatestGVLVersion returns the highest version stored of the GVL (lang "") or of a
	// translation; not_found when there is none.
	LatestGVLVersion(ctx context.Context, lang string) (int, error)
	// GVLFetchState returns what was last learnt of a resource at the source, without its
	// body; not_found when it was never fetched.
	GVLFetchState(ctx context.Context, resource string) (*GVLFetch, error)
	// SaveGVLFetchState records it (its Body is not stored).
	SaveGVLFetchState(ctx context.Context, resource string, f *GVLFetch) error
}

// TCF are the use cases of the deployment's TCF: keeping the GVL, and its status.
type TCF struct {
	Store  Store
	Source GVLSource
	Clock  core.Clock
	Log    *slog.Logger
	TCF    Ports
}

// GVLRefresh is what one RefreshGVL did.
type GVLRefresh struct {
	// Version is the GVL version current after the refresh, 0 when none is stored.
	Version int
	// Fetched are the resources asked of the source (the others were still fresh);
	// Saved the new versions stored.
	Fetched []string
	Saved   []string
}

// RefreshGVL asks the source for each resource (the GVL, then its translations, then Google's
// Additional Consent provider list) whose last answer has expired, conditionally on its
// validators, and stores each new version. A failure to fetch the GVL itself is returned at
// once; the others' failures are returned after the rest (the job is retried by its queue,
// and what is still fresh is not asked again); a resource the source does not publish is
// skipped. Without a source it does nothing.
func (t *TCF) RefreshGVL(ctx context.Context) (*GVLRefresh, error) {
	if err := core.AuthorizeSystem(ctx); err != nil {
		return nil, err
	}
	out := &GVLRefresh{Fetched: []string{}, Saved: []string{}}
	if t.Source == nil {
		return out, nil
	}
	now := t.Clock.Now()
	var errs []error
	for _, res := range append(append([]string{GVLResourceList}, translationResources()...), ACProvidersResource) {
		f, fetched, err := t.fetch(ctx, res, now)
		if fetched {
			out.Fetched = append(out.Fetched, res)
		}
		if err != nil {
			if res == GVLResourceList {
				return out, err
			}
			if !core.IsNotFound(err) {
				errs = append(errs, err)
			}
			continue
		}
		if f == nil || f.Body == nil {
			continue
		}
		saved, err := t.save(ctx, res, f.Body, now)
		if err != nil {
			if res == GVLResourceList {
				return out, err
			}
			errs = append(errs, err)
			continue
		}
		if saved {
			out.Saved = append(out.Saved, res)
		}
	}
	v, err := t.Store.LatestGVLVersion(ctx, "")
	if err == nil {
		out.Version = v
	}
	if l, ok := t.TCF.Lists.(*StoredLists); ok {
		l.forget()
	}
	return out, errors.Join(errs...)
}

func translationResources() []string {
	out := make([]string, len(gvlLanguages))
	for i, l := range gvlLanguages {
		out[i] = GVLTranslationResource(l)
	}
	return out
}

// fetch asks the source for res unless its last answer is still fresh; it records the answer's
// freshness and validators. fetched reports whether the source was asked.
func (t *TCF) fetch(ctx context.Context, res string, now time.Time) (f *GVLFetch, fetched bool, err error) {
	prev, err := t.Store.GVLFetchState(ctx, res)
	if err != nil && !core.IsNotFound(err) {
		return nil, false, err
	}
	if prev != nil && now.Before(prev.Expires) {
		return nil, false, nil
	}
	f, err = t.Source.FetchGVLResource(ctx, res, prev)
	if err != nil {
		if core.IsNotFound(err) {
			// Remember the answer for a day, so that a language the IAB does not publish is
			// not asked for at every run.
			_ = t.Store.SaveGVLFetchState(ctx, res, &GVLFetch{CheckedAt: now, Expires: now.Add(24 * time.Hour)})
		}
		return nil, true, err
	}
	if f.NotModified && prev != nil {
		f.ETag, f.LastModified = cmpOr(f.ETag, prev.ETag), cmpOr(f.LastModified, prev.LastModified)
	}
	f.CheckedAt = now
	if err := t.Store.SaveGVLFetchState(ctx, res, f); err != nil {
		return nil, true, err
	}
	return f, true, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// save stores a fetched resource as a new version when it is one: the GVL under its
// vendorListVersion, a translation under the GVL version current, Google's provider list as
// the next of its own versions when it changed.
func (t *TCF) save(ctx context.Context, res string, body []byte, now time.Time) (bool, error) {
	v := &StoredGVL{FetchedAt: now, Body: body}
	if res == ACProvidersResource {
		l, err := ParseACProviders(body)
		if err != nil {
			return false, err
		}
		v.Language, v.LastUpdated, v.Version = ACProvidersResource, now, 1
		if last, err := t.Store.LatestGVLVersion(ctx, ACProvidersResource); err == nil {
			old, err := t.Store.StoredGVL(ctx, last, ACProvidersResource)
			if err != nil {
				return false, err
			}
			if prev, err := ParseACProviders(old.Body); err == nil && maps.Equal(prev.Providers, l.Providers) {
				return false, nil // unchanged: kept once
			}
			v.Version = last + 1
		} else if !core.IsNotFound(err) {
			return false, err
		}
	} else if res == GVLResourceList {
		g, err := ParseGVL(body)
		if err != nil {
			return false, err
		}
		v.Version, v.LastUpdated = g.VendorListVersion, g.LastUpdated
	} else {
		v.Language = strings.TrimPrefix(res, "purposes-")
		tr, err := ParseGVLTranslation(v.Language, body)
		if err != nil {
			return false, err
		}
		if v.Version, err = t.Store.LatestGVLVersion(ctx, ""); err != nil {
			return false, err
		}
		if last, err := t.Store.LatestGVLVersion(ctx, v.Language); err == nil {
			if old, err := t.Store.StoredGVL(ctx, last, v.Language); err == nil {
				if prev, err := ParseGVLTranslation(v.Language, old.Body); err == nil && sameTranslation(prev, tr) {
					return false, nil // unchanged since an earlier list: kept once
				}
			}
		}
	}
	if _, err := t.Store.StoredGVL(ctx, v.Version, v.Language); err == nil {
		return false, nil
	} else if !core.IsNotFound(err) {
		return false, err
	}
	if err := t.Store.SaveGVL(ctx, v); err != nil {
		return false, err
	}
	t.Log.Info("tcf: stored a new Global Vendor List resource", "resource", res, "version", v.Version)
	return true, nil
}

func sameTranslation(a, b *GVLTranslation) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// GVLStatus is what the deployment knows of the GVL in use (the compliance report reads it).
type GVLStatus struct {
	// Version and LastUpdated are the GVL in use's; zero when none is loaded.
	Version     int       `json:"version"`
	LastUpdated time.Time `json:"lastUpdated"`
	// CheckedAt is when the source was last asked for it (zero for none, or a file).
	CheckedAt time.Time `json:"checkedAt"`
	// CMPID is the deployment's CMP ID (0: none).
	CMPID int `json:"cmpId"`
}

// GVLStatus reports the GVL in use and the deployment's CMP ID.
func (t *TCF) GVLStatus(ctx context.Context) (*GVLStatus, error) {
	if err := core.Authorize(ctx, core.PermRead, "", ""); err != nil {
		return nil, err
	}
	st := &GVLStatus{CMPID: t.TCF.Deployment.CMPID}
	g, err := t.TCF.GVL(ctx)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return st, nil
	}
	st.Version, st.LastUpdated = g.VendorListVersion, g.LastUpdated
	if f, err := t.Store.GVLFetchState(ctx, GVLResourceList); err == nil {
		st.CheckedAt = f.CheckedAt
	}
	return st, nil
}

// gvlRecheck is how often storedLists asks the store whether a newer version was stored (by
// another process's refresh).
const gvlRecheck = 10 * time.Second

// gvlVersionsKept bounds the older GVL versions storedLists keeps parsed.
const gvlVersionsKept = 4

// StoredLists are the VendorLists read from the store: the latest version, parsed once and
// rechecked every gvlRecheck, and older versions on demand.
type StoredLists struct {
	Store    GVLStore
	Clock    core.Clock
	mu       sync.Mutex
	current  *GVL
	checked  time.Time
	versions map[int]*GVL
	trs      map[string]storedTranslation
	ac       *ACProviderList
	acAt     time.Time
}

type storedTranslation struct {
	tr      *GVLTranslation
	checked time.Time
}

var _ VendorLists = (*StoredLists)(nil)

// forget makes the next read ask the store.
func (l *StoredLists) forget() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.checked, l.trs, l.acAt = time.Time{}, nil, time.Time{}
}

// ACProviders implements VendorLists: the latest stored version of Google's list, parsed once
// and rechecked every gvlRecheck.
func (l *StoredLists) ACProviders(ctx context.Context) (*ACProviderList, error) {
	now := l.Clock()
	l.mu.Lock()
	if l.ac != nil && now.Sub(l.acAt) < gvlRecheck && !now.Before(l.acAt) {
		defer l.mu.Unlock()
		return l.ac, nil
	}
	cached := l.ac
	l.mu.Unlock()
	v, err := l.Store.LatestGVLVersion(ctx, ACProvidersResource)
	if err != nil {
		return nil, err
	}
	ac := cached
	if ac == nil || ac.Version != v {
		s, err := l.Store.StoredGVL(ctx, v, ACProvidersResource)
		if err != nil {
			return nil, err
		}
		if ac, err = ParseACProviders(s.Body); err != nil {
			return nil, core.Wrap(core.CodeInternal, err, "a stored Additional Consent provider list does not parse")
		}
		ac.Version = v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ac, l.acAt = ac, now
	return ac, nil
}

// CurrentGVL implements VendorLists.
func (l *StoredLists) CurrentGVL(ctx context.Context) (*GVL, error) {
	now := l.Clock()
	l.mu.Lock()
	if l.current != nil && now.Sub(l.checked) < gvlRecheck && !now.Before(l.checked) {
		defer l.mu.Unlock()
		return l.current, nil
	}
	l.mu.Unlock()
	v, err := l.Store.LatestGVLVersion(ctx, "")
	if err != nil {
		return nil, err
	}
	g, err := l.GVL(ctx, v)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.current, l.checked = g, now
	return g, nil
}

// GVL implements VendorLists.
func (l *StoredLists) GVL(ctx context.Context, version int) (*GVL, error) {
	l.mu.Lock()
	if l.current != nil && l.current.VendorListVersion == version {
		defer l.mu.Unlock()
		return l.current, nil
	}
	if g, ok := l.versions[version]; ok {
		defer l.mu.Unlock()
		return g, nil
	}
	l.mu.Unlock()
	s, err := l.Store.StoredGVL(ctx, version, "")
	if err != nil {
		return nil, err
	}
	g, err := ParseGVL(s.Body)
	if err != nil {
		return nil, core.Wrap(core.CodeInternal, err, "a stored Global Vendor List does not parse")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.versions == nil || len(l.versions) >= gvlVersionsKept {
		l.versions = map[int]*GVL{}
	}
	l.versions[version] = g
	return g, nil
}

// GVLTranslation implements VendorLists: the latest stored translation into lang.
func (l *StoredLists) GVLTranslation(ctx context.Context, lang string) (*GVLTranslation, error) {
	lang = strings.ToLower(lang)
	now := l.Clock()
	l.mu.Lock()
	if t, ok := l.trs[lang]; ok && now.Sub(t.checked) < gvlRecheck && !now.Before(t.checked) {
		defer l.mu.Unlock()
		if t.tr == nil {
			return nil, core.Errorf(core.CodeNotFound, "no GVL translation into %q", lang)
		}
		return t.tr, nil
	}
	l.mu.Unlock()
	var tr *GVLTranslation
	v, err := l.Store.LatestGVLVersion(ctx, lang)
	if err == nil {
		var s *StoredGVL
		if s, err = l.Store.StoredGVL(ctx, v, lang); err == nil {
			tr, err = ParseGVLTranslation(lang, s.Body)
		}
	}
	if err != nil && !core.IsNotFound(err) {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.trs == nil {
		l.trs = map[string]storedTranslation{}
	}
	l.trs[lang] = storedTranslation{tr: tr, checked: now}
	if tr == nil {
		return nil, core.Errorf(core.CodeNotFound, "no GVL translation into %q", lang)
	}
	return tr, nil
}
