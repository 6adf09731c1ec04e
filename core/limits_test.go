package core

import "testing"

// TestOneSlugPattern: the pattern core validates slugs with is SlugPattern, the one the HTTP
// schema is checked against.
func TestOneSlugPattern(t *testing.T) {
	if slugPattern.String() != SlugPattern {
		t.Fatalf("slugPattern %q, SlugPattern %q", slugPattern.String(), SlugPattern)
	}
}
