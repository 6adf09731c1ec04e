package bunstore

import "github.com/uptrace/bun"

// AddMigrationHook adds a query hook to the database s.Migrate works on, for the crash tests.
func AddMigrationHook(s *Store, h bun.QueryHook) {
	s.migrationHooks = append(s.migrationHooks, h)
}
