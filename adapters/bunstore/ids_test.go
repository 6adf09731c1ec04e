package bunstore_test

import (
	"testing"

	"github.com/consentd/consentd/adapters/bunstore/pgtest"
	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/coretest"
)

func TestSQLiteIDSpelling(t *testing.T) {
	t.Parallel()
	coretest.IDSpellingContract(t, func(t *testing.T) core.Store { return openSQLite(t) })
}

func TestPostgresIDSpelling(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	coretest.IDSpellingContract(t, func(t *testing.T) core.Store { return openPostgres(t) })
}
