// Package iabgvl gives core the IAB's Global Vendor List (core.VendorLists): read from a file
// for offline installs and tests (CONSENTD_TCF_GVL_FILE), with the IAB's translations found
// beside it.
package iabgvl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/consentd/consentd/core"
)

// File is a GVL read once from a file, with the translations beside it (purposes-<lang>.json,
// the IAB's names), read once too.
type File struct {
	gvl          *core.GVL
	translations map[string]*core.GVLTranslation
}

var _ core.VendorLists = (*File)(nil)

// OpenFile reads the GVL v3 at path and the files purposes-<lang>.json in its directory; an
// unreadable or invalid file is an error naming it.
func OpenFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CONSENTD_TCF_GVL_FILE: %w", err)
	}
	gvl, err := core.ParseGVL(data)
	if err != nil {
		return nil, fmt.Errorf("CONSENTD_TCF_GVL_FILE %s: %w", path, err)
	}
	f := &File{gvl: gvl, translations: map[string]*core.GVLTranslation{}}
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
		if f.translations[lang], err = core.ParseGVLTranslation(lang, data); err != nil {
			return nil, fmt.Errorf("GVL translation %s: %w", name, err)
		}
	}
	return f, nil
}

// CurrentGVL implements core.VendorLists.
func (f *File) CurrentGVL(context.Context) (*core.GVL, error) { return f.gvl, nil }

// GVLTranslation implements core.VendorLists.
func (f *File) GVLTranslation(_ context.Context, lang string) (*core.GVLTranslation, error) {
	if t, ok := f.translations[strings.ToLower(lang)]; ok {
		return t, nil
	}
	return nil, core.Errorf(core.CodeNotFound, "no GVL translation into %q", lang)
}
