package bunstore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/consentd/consentd/adapters/bunstore/dbguard"
	"github.com/consentd/consentd/core"
)

// translate maps driver errors to core errors: no rows → not_found, unique violation →
// conflict, a malformed identifier (Postgres uuid columns) → not_found, a foreign key
// violation (the parent named by an insert does not exist) → not_found, as memstore answers.
// The dialect's own error codes are read by translatePostgres and translateSQLite.
func translate(err error, what string) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return err
	}
	if out := dbguard.Unavailable(err); out != err {
		return out // pgIngest's own connection is no database/sql one (dbguard)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return core.Errorf(core.CodeNotFound, "%s not found", what)
	}
	if out := translatePostgres(err, what); out != nil {
		return out
	}
	if out := translateSQLite(err, what); out != nil {
		return out
	}
	return fmt.Errorf("%s: %w", what, err)
}

func mustAffect(res sql.Result, err error, what string) error {
	if err != nil {
		return translate(err, what)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return translate(err, what)
	}
	if n == 0 {
		return core.Errorf(core.CodeNotFound, "%s not found", what)
	}
	return nil
}
