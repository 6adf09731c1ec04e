package memstore_test

import (
	"testing"

	"github.com/consentd/consentd/adapters/memstore"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/coretest"
)

func TestStoreContract(t *testing.T) {
	coretest.StoreContract(t, func(t *testing.T) core.Store { return memstore.New() })
}
