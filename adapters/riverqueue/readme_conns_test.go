package riverqueue

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestREADMEConnectionsAreTheQueues: the README's figure for the queue's pool is poolConns.
func TestREADMEConnectionsAreTheQueues(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if poolConns(0) != poolConns(2) || poolConns(10) != 16 {
		t.Fatalf("poolConns is no longer the workers plus 6, at least 8: %d, %d, %d", poolConns(0), poolConns(2), poolConns(10))
	}
	want := fmt.Sprintf("- the scan queue's pool: the number of workers plus %d, and at least %d (`adapters/riverqueue`)", poolConns(10)-10, poolConns(0))
	if !strings.Contains(string(b), want) {
		t.Errorf("README.md lacks %q", want)
	}
}
