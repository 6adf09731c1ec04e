package extract

import (
	"sync"
	"testing"

	"github.com/consentd/consentd/library"
)

var (
	indexOnce sync.Once
	indexVal  *library.Index
	indexErr  error
)

// catalogIndex is the embedded catalog's index, built once per test binary.
func catalogIndex(t testing.TB) *library.Index {
	t.Helper()
	indexOnce.Do(func() {
		cat, err := library.Load("")
		if err != nil {
			indexErr = err
			return
		}
		indexVal, indexErr = library.NewIndex(cat.Services())
	})
	if indexErr != nil {
		t.Fatal(indexErr)
	}
	return indexVal
}
