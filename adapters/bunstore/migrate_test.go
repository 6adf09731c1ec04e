package bunstore_test

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"

	"github.com/consentd/consentd/adapters/bunstore"
	"github.com/consentd/consentd/adapters/bunstore/pgtest"
)

// Environment of the child process of the crash tests: the database URL to migrate and the
// number of the query before which the child kills itself.
const (
	crashURLEnv = "BUNSTORE_CRASH_URL"
	crashAtEnv  = "BUNSTORE_CRASH_AT"
)

// killAt is a query hook that SIGKILLs its own process before the n-th query: the process
// dies between two statements as it would on a power cut or an OOM kill, with nothing
// rolled back or closed by Go.
type killAt struct {
	n, seen int64
}

func (k *killAt) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	if atomic.AddInt64(&k.seen, 1) == k.n {
		syscall.Kill(os.Getpid(), syscall.SIGKILL) //nolint:errcheck // the process is gone if it worked
		select {}
	}
	return ctx
}

func (k *killAt) AfterQuery(context.Context, *bun.QueryEvent) {}

// migratingMarker is the line the child prints as it starts Migrate.
const migratingMarker = "child: migrating"

// TestMigrateCrashChild is the child of the crash tests: it migrates the database named by
// BUNSTORE_CRASH_URL and kills itself before query BUNSTORE_CRASH_AT (0: never). Without them
// it does nothing.
func TestMigrateCrashChild(t *testing.T) {
	dsn, at := os.Getenv(crashURLEnv), os.Getenv(crashAtEnv)
	if dsn == "" {
		return
	}
	n, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		bunstore.AddMigrationHook(s, &killAt{n: n})
	}
	fmt.Println(migratingMarker)
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// crashWorkers is how many crash children the crash tests run at once, each on a database of
// its own. A kill's time goes to starting the child, to the database server and to waiting
// for both, so a few at once overlap even on two cores; one at a time, the Postgres crash
// tests took over three minutes of a CI run.
const crashWorkers = 4

// inTurn runs each of items as a subtest named by its number, crashWorkers at a time, until
// they are all done, a subtest fails or stop returns true (checked before each is started),
// and returns when the started ones have ended. Its subtests run beside each other, not
// beside the test's other subtests, as t.Parallel would have them.
func inTurn(t *testing.T, items func(yield func(int) bool), stop func() bool, run func(t *testing.T, n int)) {
	work := make(chan int)
	var wg sync.WaitGroup
	for range crashWorkers {
		wg.Go(func() {
			for n := range work {
				t.Run(strconv.Itoa(n), func(t *testing.T) { run(t, n) })
			}
		})
	}
	for n := range items {
		if t.Failed() || stop() {
			break
		}
		work <- n
	}
	close(work)
	wg.Wait()
}

// crashUntilDone runs kill for i = 0, 1, ... on a fresh database each, in a subtest so that
// the database is released at once, and checks after each that the next Migrate succeeds and
// leaves the schema of an uninterrupted migration, with every migration recorded once. kill
// starts a child migrating dsn, kills it at its i-th point and reports whether it was killed
// (false: it migrated to the end first, and no further i is started) and where. The kills run
// crashWorkers at a time (inTurn). It returns the first i whose child was not killed.
func crashUntilDone(t *testing.T, fresh func(t *testing.T) string, kill func(t *testing.T, dsn string, i int) (killed bool, where string)) int {
	want := schemaOf(t, migrated(t, fresh(t)))
	var mu sync.Mutex
	done := -1
	finished := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return done >= 0
	}
	inTurn(t, func(yield func(int) bool) {
		for i := 0; i < 500 && yield(i); i++ {
		}
	}, finished, func(t *testing.T, i int) {
		dsn := fresh(t)
		killed, where := kill(t, dsn, i)
		remigrate(t, dsn, want, where)
		if !killed {
			mu.Lock()
			if done < 0 || i < done {
				done = i
			}
			mu.Unlock()
		}
	})
	if t.Failed() {
		t.FailNow()
	}
	if !finished() {
		t.Fatal("the child never finished migrating")
	}
	return done
}

// crashChild returns the command of a child migrating dsn that kills itself before query n
// (0: never).
func crashChild(dsn string, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMigrateCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashURLEnv+"="+dsn, crashAtEnv+"="+strconv.Itoa(n))
	return cmd
}

// signaled reports whether a child's error says it was killed by a signal; any other error
// fails the test.
func signaled(t *testing.T, err error, out []byte) bool {
	t.Helper()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signaled() {
		return true
	}
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	return false
}

// testMigrateCrash kills a child's first Migrate of a fresh database before queries chosen
// by crashPoints, and checks after each that the next Migrate completes the schema. The
// kills run crashWorkers at a time (inTurn).
func testMigrateCrash(t *testing.T, dialect string, fresh func(t *testing.T) string) {
	points, total := crashPoints(t, fresh(t))
	want := schemaOf(t, migrated(t, fresh(t)))
	inTurn(t, slices.Values(points), func() bool { return false }, func(t *testing.T, n int) {
		dsn := fresh(t)
		out, err := crashChild(dsn, n).CombinedOutput()
		if !signaled(t, err, out) {
			t.Fatalf("the child migrated to the end before query %d of %d", n, total)
		}
		remigrate(t, dsn, want, fmt.Sprintf("%s, killed before query %d", dialect, n))
	})
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%s: killed before %d of the %d queries of a first Migrate; each time the next Migrate completed the schema", dialect, len(points), total)
}

// queryLog is a query hook that keeps every query's text, in order.
type queryLog struct{ queries []string }

func (l *queryLog) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	l.queries = append(l.queries, e.Query)
	return ctx
}

func (l *queryLog) AfterQuery(context.Context, *bun.QueryEvent) {}

// crashPoints migrates the fresh database at dsn, recording its queries, and returns the
// 1-based numbers of the queries testMigrateCrash kills before, and how many there were.
//
// Each migration runs as: BEGIN (and on Postgres the advisory lock again), its check (a count
// of bun_migrations), its body (the file's statements), its record (an INSERT INTO
// bun_migrations), COMMIT, and bun's own second record. The points: every query before the
// first migration (the migrator's tables and lock) and after the last; every query of the
// bookkeeping of the first two and the last two migrations, with the first and the last
// statement of their bodies; and the first statement of the middle migration's body. Kills
// elsewhere would repeat these: the bookkeeping of the middle
// migrations is the same code in the same order, and every body runs in one transaction (a
// file not named .tx.up.sql is refused), so a kill before any later statement of a body leaves
// what a kill before its first does, an uncommitted transaction the database rolls back; that
// would test the database's atomicity, not the migrator, and made this test grow with the
// square of the migrations (236 kills and over 10 minutes on a busy machine for 26 of them);
// the statements between the first and the last body statement of the first two and the last
// two migrations were 14 of 83 Postgres kills. A kill before the first statement of any other
// middle migration's body leaves what one before the middle one's does, the migrations before
// it applied and its own transaction rolled back, and the next Migrate runs the same
// bookkeeping from there: one for each middle migration was 31 of 69 Postgres kills (and 30 of
// 62 SQLite ones), a third of the crash tests' CPU time (48.4 against 31.9 CPU-seconds for
// the four, alone on two cores), for no state the others miss.
// What keeps that argument true is checked here: no body statement ends or starts a
// transaction. testMigrateKillAfterDelay still kills at arbitrary moments, inside statements
// included.
func crashPoints(t *testing.T, dsn string) ([]int, int) {
	t.Helper()
	ctx := context.Background()
	s, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log := &queryLog{}
	bunstore.AddMigrationHook(s, log)
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Split the queries into what precedes the first migration and each migration's queries.
	type migration struct{ begin, check, end int } // 0-based: BEGIN, the check, one past bun's record
	var ms []migration
	qs := log.queries
	isCheck := func(q string) bool {
		return strings.Contains(q, "bun_migrations") && strings.HasPrefix(strings.TrimSpace(q), "SELECT count(*)")
	}
	for i := 0; i < len(qs); i++ {
		if !isCheck(qs[i]) {
			continue
		}
		// BEGIN, then on Postgres the advisory lock taken again inside the transaction.
		b := i - 1
		if b > 0 && strings.Contains(qs[b], "pg_advisory_lock") {
			b--
		}
		if b < 0 || strings.TrimSpace(qs[b]) != "BEGIN" {
			t.Fatalf("query %d, a migration's check, does not follow BEGIN: the query log no longer looks like bun's", i+1)
		}
		m := migration{begin: b, check: i}
		j := i + 1
		for j < len(qs) && !strings.Contains(qs[j], "bun_migrations") {
			if txControl.MatchString(qs[j]) {
				t.Fatalf("query %d, in a migration's body, ends or starts a transaction: %.80q", j+1, qs[j])
			}
			j++
		}
		// j: the record; then COMMIT and bun's second record.
		if j+2 >= len(qs) || strings.TrimSpace(qs[j+1]) != "COMMIT" || !strings.Contains(qs[j+2], "bun_migrations") {
			t.Fatalf("migration at query %d does not end in record, COMMIT, record: the query log no longer looks like bun's", i+1)
		}
		m.end = j + 3
		ms = append(ms, m)
		i = j + 2
	}
	if len(ms) < 5 {
		t.Fatalf("found %d migrations in %d queries: the query log no longer looks like bun's", len(ms), len(qs))
	}
	var points []int
	for n := 1; n <= ms[0].begin; n++ {
		points = append(points, n)
	}
	for k, m := range ms {
		if k < 2 || k >= len(ms)-2 {
			// The bookkeeping before the body, the body's first statement, its last, and
			// the bookkeeping after it (record, COMMIT, second record; 1-based m.end-2..m.end).
			for n := m.begin + 1; n <= m.check+2; n++ {
				points = append(points, n)
			}
			for n := max(m.check+3, m.end-3); n <= m.end; n++ {
				points = append(points, n)
			}
		} else if k == len(ms)/2 {
			points = append(points, m.check+2) // the body's first statement
		}
	}
	for n := ms[len(ms)-1].end + 1; n <= len(qs); n++ { // after the last (Postgres: the unlock)
		points = append(points, n)
	}
	return points, len(qs)
}

// txControl matches a statement that ends or starts a transaction.
var txControl = regexp.MustCompile(`(?is)^\s*(--[^\n]*\n\s*)*(COMMIT|END|BEGIN|ROLLBACK|SAVEPOINT|RELEASE)\b`)

// killDelay is the i-th delay of testMigrateKillAfterDelay: 0, then each 1 ms and a quarter
// longer than the one before. (An eighth made 44 kills of a Postgres Migrate and 29 of a
// SQLite one, each costing about a whole Migrate between the child and the next one; the
// kills before chosen queries, testMigrateCrash, cover the boundaries between statements.)
func killDelay(i int) time.Duration {
	var d time.Duration
	for range i {
		d += time.Millisecond + d/4
	}
	return d
}

// testMigrateKillAfterDelay SIGKILLs a child after a growing delay from the start of its
// Migrate, so that kills also land in the middle of statements and commits.
func testMigrateKillAfterDelay(t *testing.T, dialect string, fresh func(t *testing.T) string) {
	n := crashUntilDone(t, fresh, func(t *testing.T, dsn string, i int) (bool, string) {
		d := killDelay(i)
		cmd := crashChild(dsn, 0)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		for lines.Scan() && lines.Text() != migratingMarker {
		}
		time.Sleep(d)
		cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // the child may have exited already
		io.Copy(io.Discard, stdout)         //nolint:errcheck // drained only so that Wait returns
		return signaled(t, cmd.Wait(), nil), fmt.Sprintf("%s, killed %v into Migrate", dialect, d)
	})
	t.Logf("%s: killed %d times, 0 to %v into a first Migrate; each time the next Migrate completed the schema", dialect, n, killDelay(n-1))
}

// remigrate migrates the database at dsn after a crash and checks its schema against want.
func remigrate(t *testing.T, dsn string, want []string, after string) {
	t.Helper()
	ctx := context.Background()
	s, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("%s: the next Migrate: %v", after, err)
	}
	if got := schemaOf(t, s); !slices.Equal(got, want) {
		t.Fatalf("%s: schema after the next Migrate differs:\n%s", after, diff(want, got))
	}
}

func TestSQLiteMigrateKillAfterDelay(t *testing.T) {
	t.Parallel()
	testMigrateKillAfterDelay(t, "sqlite", func(t *testing.T) string {
		return "sqlite://" + filepath.Join(t.TempDir(), "crash.db")
	})
}

func TestPostgresMigrateKillAfterDelay(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	testMigrateKillAfterDelay(t, "postgres", emptiedSchemas(t))
}

// emptiedSchemas returns a function that takes one of a few fresh databases, empties its
// public schema, and returns its URL; the database goes back to the others when the calling
// test ends. Cheaper than a database per kill on a busy server, and enough of them for the
// crash tests' parent (two) and their crashWorkers subtests at once.
func emptiedSchemas(t *testing.T) func(t *testing.T) string {
	type database struct {
		dsn   string
		admin *sql.DB
	}
	free := make(chan database, crashWorkers+2)
	for range cap(free) {
		dsn := pgtest.FreshURL(t)
		admin, err := sql.Open("pgx", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Close() })
		free <- database{dsn, admin}
	}
	return func(t *testing.T) string {
		db := <-free
		t.Cleanup(func() { free <- db })
		for _, q := range []string{"DROP SCHEMA public CASCADE", "CREATE SCHEMA public"} {
			if _, err := db.admin.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		return db.dsn
	}
}

func TestSQLiteMigrateCrash(t *testing.T) {
	t.Parallel()
	testMigrateCrash(t, "sqlite", func(t *testing.T) string {
		return "sqlite://" + filepath.Join(t.TempDir(), "crash.db")
	})
}

func TestPostgresMigrateCrash(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	testMigrateCrash(t, "postgres", emptiedSchemas(t))
}

// migrated opens and migrates the database at dsn.
func migrated(t *testing.T, dsn string) *bunstore.Store {
	t.Helper()
	ctx := context.Background()
	s, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaOf describes the database's tables, columns, indexes and constraints, and the
// migrations it records, one line each, sorted.
func schemaOf(t *testing.T, s *bunstore.Store) []string {
	t.Helper()
	ctx := context.Background()
	var queries []string
	if s.Dialect() == "postgres" {
		queries = []string{
			`SELECT table_name || '.' || column_name || ' ' || data_type || ' null=' || is_nullable || ' default=' || coalesce(column_default, '')
			 FROM information_schema.columns WHERE table_schema = 'public'`,
			`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'`,
			`SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
		}
	} else {
		queries = []string{`SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_master`}
	}
	queries = append(queries, `SELECT 'migration ' || name FROM bun_migrations`)
	var out []string
	for _, q := range queries {
		var rows []string
		if err := s.DB().NewRaw(q).Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		out = append(out, rows...)
	}
	slices.Sort(out)
	return out
}

func diff(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "+ %s\n", g)
		}
	}
	return b.String()
}

// migrationDigits is the name bun records for a migration file: its leading digits.
var migrationDigits = regexp.MustCompile(`^\d+`)

// testRenamedMigrations migrates a database with the migration files under their former
// names (NAME.up.sql, run statement by statement) and checks that Migrate, with the files now
// named NAME.tx.up.sql, finds every migration applied: bun records only the digits of a name.
func testRenamedMigrations(t *testing.T, dsn string) {
	ctx := context.Background()
	s, err := bunstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := "migrations/" + s.Dialect()
	old := fstest.MapFS{}
	var names []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".tx.up.sql") {
			t.Fatalf("%s/%s: every migration must be NAME.tx.up.sql, to run in a transaction", dir, e.Name())
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		old[strings.Replace(e.Name(), ".tx.up.sql", ".up.sql", 1)] = &fstest.MapFile{Data: b}
		names = append(names, "migration "+migrationDigits.FindString(e.Name()))
	}
	ms := migrate.NewMigrations()
	if err := ms.Discover(fs.FS(old)); err != nil {
		t.Fatal(err)
	}
	m := migrate.NewMigrator(s.DB(), ms, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("Migrate after the same migrations under their former names: %v", err)
	}
	var recorded []string
	if err := s.DB().NewRaw(`SELECT 'migration ' || name FROM bun_migrations ORDER BY name`).Scan(ctx, &recorded); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recorded, names) {
		t.Fatalf("recorded %q, want %q", recorded, names)
	}
}

func TestSQLiteRenamedMigrations(t *testing.T) {
	t.Parallel()
	testRenamedMigrations(t, "sqlite://"+filepath.Join(t.TempDir(), "renamed.db"))
}

func TestPostgresRenamedMigrations(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	testRenamedMigrations(t, pgtest.FreshURL(t))
}

// testHalfCreated starts from the schema a crash of the former, non-transactional migrations
// could leave: the first statements of the first migration applied, nothing recorded.
// Migrate completes it.
func testHalfCreated(t *testing.T, fresh func(t *testing.T) string) {
	ctx := context.Background()
	want := schemaOf(t, migrated(t, fresh(t)))
	s, err := bunstore.Open(ctx, fresh(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, err := os.ReadFile("migrations/" + s.Dialect() + "/20261121000001_init.tx.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range strings.Split(string(b), "--bun:split")[:3] {
		if _, err := s.DB().ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("Migrate of a half-created schema: %v", err)
	}
	if got := schemaOf(t, s); !slices.Equal(got, want) {
		t.Fatalf("schema differs:\n%s", diff(want, got))
	}
}

func TestSQLiteHalfCreated(t *testing.T) {
	t.Parallel()
	testHalfCreated(t, func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "half.db") })
}

func TestPostgresHalfCreated(t *testing.T) {
	pgtest.ServerURL(t)
	t.Parallel()
	testHalfCreated(t, func(t *testing.T) string { return pgtest.FreshURL(t) })
}

// TestSQLiteConcurrentMigrate migrates one new SQLite file from several stores at once, as a
// server and a worker starting together do: without an advisory lock, a migration that
// another store applied meanwhile is skipped, and all succeed.
func TestSQLiteConcurrentMigrate(t *testing.T) {
	t.Parallel()
	dsn := "sqlite://" + filepath.Join(t.TempDir(), "concurrent.db")
	ctx := context.Background()
	errs := make(chan error, 4)
	for range cap(errs) {
		go func() {
			s, err := bunstore.Open(ctx, dsn)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			errs <- s.Migrate(ctx)
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	var n int
	if err := migrated(t, dsn).DB().NewRaw("SELECT count(*) FROM bun_migrations").Scan(ctx, &n); err != nil {
		t.Fatal(err)
	}
	if want := countMigrations(t, "sqlite"); n != want {
		t.Fatalf("%d migrations recorded, want %d (each exactly once)", n, want)
	}
}
