package memstore_test

import (
	"testing"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core/coretest"
	"github.com/consentd/consentd/core/usecases"
)

func TestStoreContract(t *testing.T) {
	coretest.StoreContract(t, func(t *testing.T) usecases.Store { return memstore.New() })
}

// TestIDSpelling: the fake the other tests trust answers odd ID spellings as SQLite and
// Postgres do.
func TestIDSpelling(t *testing.T) {
	coretest.IDSpellingContract(t, func(t *testing.T) usecases.Store { return memstore.New() })
}

func TestAnalyticsContract(t *testing.T) {
	coretest.AnalyticsContract(t, func(t *testing.T) usecases.Store { return memstore.New() })
}
