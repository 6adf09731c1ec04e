package core

import "testing"

// TestOneSlugPattern: the pattern core validates slugs with is SlugPattern, the one the HTTP
// schema is checked against.
func TestOneSlugPattern(t *testing.T) {
	if slugRegexp.String() != SlugPattern {
		t.Fatalf("slugRegexp %q, SlugPattern %q", slugRegexp.String(), SlugPattern)
	}
}
