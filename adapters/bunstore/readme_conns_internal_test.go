package bunstore

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeConnections is the README's list of the Postgres connections a process holds.
func readmeConnections(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "Each `serve` or `worker` process holds at most")
	if i < 0 {
		t.Fatal("README.md no longer lists the Postgres connections a process holds")
	}
	s = s[i:]
	if j := strings.Index(s, "\n\n`serve` runs"); j >= 0 {
		s = s[:j]
	}
	return s
}

// TestREADMEConnectionsAreTheStores: the README's figures for the store's pools are the ones
// the store opens, and its total for a two-core serve without workers adds them up with the
// queue's line (which the queue's own test pins).
func TestREADMEConnectionsAreTheStores(t *testing.T) {
	s := readmeConnections(t)
	for _, want := range []string{
		fmt.Sprintf("- %d for the store's main pool", mainConns),
		fmt.Sprintf("- %d for the consent listing and export reads", listingConns),
		fmt.Sprintf("one per two cores and at most %d (`pgCommitters`)", pgCommitters(1<<10)),
	} {
		if !strings.Contains(s, want) {
			t.Errorf("README.md's list of connections lacks %q:\n%s", want, s)
		}
	}
	if pgCommitters(2) != 1 || pgCommitters(4) != 2 {
		t.Errorf("pgCommitters no longer runs one committer per two cores: %d on 2, %d on 4", pgCommitters(2), pgCommitters(4))
	}
	queue := regexp.MustCompile(`and at least (\d+) \(` + "`adapters/riverqueue`").FindStringSubmatch(s)
	total := regexp.MustCompile(`A two-core .serve. with no workers holds at most (\d+)\.`).FindStringSubmatch(s)
	if queue == nil || total == nil {
		t.Fatalf("README.md's list lacks the queue's pool or the two-core total:\n%s", s)
	}
	q, _ := strconv.Atoi(queue[1])
	if got, _ := strconv.Atoi(total[1]); got != mainConns+listingConns+pgCommitters(2)+q {
		t.Errorf("README.md says a two-core serve without workers holds at most %d connections; its own figures add up to %d", got, mainConns+listingConns+pgCommitters(2)+q)
	}
}
