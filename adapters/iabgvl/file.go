// Package iabgvl gives core the IAB's Global Vendor List (core.VendorLists): read from a file
// for offline installs and tests (CONSENTD_TCF_GVL_FILE), with the IAB's translations found
// beside it.
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
}

var (
	_ tcf.VendorLists = (*File)(nil)
	_ tcf.GVLSource   = (*File)(nil)
)

// OpenFile reads the GVL v3 at path and the files purposes-<lang>.json in its directory; an
// unreadable or invalid file is an error naming it.
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

// FetchGVLResource implements core.GVLSource: the file, or a translation beside it
// (not_found when there is none). The answer is never fresh: each refresh reads the files.
func (f *File) FetchGVLResource(_ context.Context, name string, _ *tcf.GVLFetch) (*tcf.GVLFetch, error) {
	path := f.path
	if name != tcf.GVLResourceList {
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
