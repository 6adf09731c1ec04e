package main

import (
	"context"
	"strings"
	"testing"
)

// TestRunRefusesFlagsItCannotHonour: -sites and -config exist only in the -processes mode, and
// the counts have bounds; each refusal comes before any store or server is started.
func TestRunRefusesFlagsItCannotHonour(t *testing.T) {
	proc := []string{"-processes", "2", "-consentd", "/nonexistent/consentd", "-database-url", "postgres://127.0.0.1:1/none"}
	for _, args := range [][]string{
		{"-sites", "2"},
		{"-config"},
		append([]string{"-sites", "0"}, proc...),
		append([]string{"-sites", "65"}, proc...),
		{"-processes", "9"},
		{"-posters", "0"},
	} {
		err := run(context.Background(), args)
		if err == nil || !strings.Contains(err.Error(), "must be") {
			t.Errorf("%v: %v, want a refusal of the flags", args, err)
		}
	}
}
