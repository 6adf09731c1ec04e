package bunstore_test

import (
	"testing"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core/coretest"
	"github.com/consentd/consentd/core/usecases"
)

func TestSQLiteIDSpelling(t *testing.T) {
	t.Parallel()
	coretest.IDSpellingContract(t, func(t *testing.T) usecases.Store { return openSQLite(t) })
}

func TestPostgresIDSpelling(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	coretest.IDSpellingContract(t, func(t *testing.T) usecases.Store { return openPostgres(t) })
}
