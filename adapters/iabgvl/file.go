// Package iabgvl gives core the IAB's Global Vendor List (core.VendorLists): read from a file
// for offline installs and tests (CONSENTD_TCF_GVL_FILE), with the IAB's translations and
// Google's Additional Consent provider list (ACProvidersFile) found beside it.
package iabgvl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/tcf"
)

// File is a GVL read from a file, with the translations beside it (purposes-<lang>.json, the
// IAB's names). As a core.GVLSource (CONSENTD_TCF_GVL_FILE) it is read again at each refresh,
// so that replacing the file brings its version in; as core.VendorLists (tests) it is what
// OpenFile read.
type File struct {
	path         string
	gvl          *tcf.GVL
	translations map[string]*tcf.GVLTranslation
	ac           *tcf.ACProviderList
}

// ACProvidersFile is the name of Google's Additional Consent provider list beside
// CONSENTD_TCF_GVL_FILE, as Google publishes it (DefaultACProvidersURL).
const ACProvidersFile = "additional-consent-providers.csv"

var (
	_ tcf.VendorLists = (*File)(nil)
	_ tcf.GVLSource   = (*File)(nil)
)

// OpenFile reads the GVL v3 at path, the files purposes-<lang>.json in its directory and
// Google's provider list (ACProvidersFile) there if it is; an unreadable or invalid file is an
// error naming it.
func OpenFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CONSENTD_TCF_GVL_FILE: %w", err)
	}
	gvl, err := tcf.ParseGVL(data)
	if err != nil {
		return nil, fmt.Errorf("CONSENTD_TCF_GVL_FILE %s: %w", path, err)
	}
	f := &File{path: path, gvl: gvl, translations: map[string]*tcf.GVLTranslation{}}
	names, err := filepath.Glob(filepath.Join(filepath.Dir(path), "purposes-*.json"))
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		lang := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(name), "purposes-"), ".json"))
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("GVL translation: %w", err)
		}
		if f.translations[lang], err = tcf.ParseGVLTranslation(lang, data); err != nil {
			return nil, fmt.Errorf("GVL translation %s: %w", name, err)
		}
	}
	data, err = os.ReadFile(filepath.Join(filepath.Dir(path), ACProvidersFile))
	switch {
	case err == nil:
		if f.ac, err = tcf.ParseACProviders(data); err != nil {
			return nil, fmt.Errorf("%s beside CONSENTD_TCF_GVL_FILE: %w", ACProvidersFile, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s beside CONSENTD_TCF_GVL_FILE: %w", ACProvidersFile, err)
	}
	return f, nil
}

// CurrentGVL implements core.VendorLists.
func (f *File) CurrentGVL(context.Context) (*tcf.GVL, error) { return f.gvl, nil }

// GVL implements core.VendorLists.
func (f *File) GVL(_ context.Context, version int) (*tcf.GVL, error) {
	if version != f.gvl.VendorListVersion {
		return nil, core.Errorf(core.CodeNotFound, "Global Vendor List version %d not found (the file holds version %d)", version, f.gvl.VendorListVersion)
	}
	return f.gvl, nil
}

// FetchGVLResource implements core.GVLSource: the file, or a translation or Google's provider
// list beside it (not_found when there is none). The answer is never fresh: each refresh reads
// the files.
func (f *File) FetchGVLResource(_ context.Context, name string, _ *tcf.GVLFetch) (*tcf.GVLFetch, error) {
	path := f.path
	switch name {
	case tcf.GVLResourceList:
	case tcf.ACProvidersResource:
		path = filepath.Join(filepath.Dir(f.path), ACProvidersFile)
	default:
		path = filepath.Join(filepath.Dir(f.path), filepath.Base(name)+".json")
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && name != tcf.GVLResourceList {
		return nil, core.Errorf(core.CodeNotFound, "no %s beside CONSENTD_TCF_GVL_FILE", name)
	}
	if err != nil {
		return nil, fmt.Errorf("CONSENTD_TCF_GVL_FILE: %w", err)
	}
	return &tcf.GVLFetch{Body: data}, nil
}

// GVLTranslation implements core.VendorLists.
func (f *File) GVLTranslation(_ context.Context, lang string) (*tcf.GVLTranslation, error) {
	if t, ok := f.translations[strings.ToLower(lang)]; ok {
		return t, nil
	}
	return nil, core.Errorf(core.CodeNotFound, "no GVL translation into %q", lang)
}

// ACProviders implements core.VendorLists: the list OpenFile found beside the GVL.
func (f *File) ACProviders(context.Context) (*tcf.ACProviderList, error) {
	if f.ac == nil {
		return nil, core.Errorf(core.CodeNotFound, "no %s beside CONSENTD_TCF_GVL_FILE", ACProvidersFile)
	}
	return f.ac, nil
}
