// Package librarytest gives other packages' tests the catalog consentd ships and its index,
// loaded once per test binary: recorded sites are checked against what consentd ships.
package librarytest

import (
	"sync"
	"testing"

	"github.com/consentd/consentd/library"
)

var (
	catalog = sync.OnceValues(func() (*library.Catalog, error) { return library.Load("") })
	index   = sync.OnceValues(func() (*library.Index, error) {
		cat, err := catalog()
		if err != nil {
			return nil, err
		}
		return library.NewIndex(cat.Services())
	})
)

// Catalog is the embedded catalog. It is shared: tests must not change it.
func Catalog(t testing.TB) *library.Catalog {
	t.Helper()
	cat, err := catalog()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// Index is the index over the embedded catalog. It is shared: tests must not change it.
func Index(t testing.TB) *library.Index {
	t.Helper()
	ix, err := index()
	if err != nil {
		t.Fatal(err)
	}
	return ix
}
