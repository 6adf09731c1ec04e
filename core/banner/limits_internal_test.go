package banner

import (
	"testing"

	"github.com/consentd/consentd/core"
)

// TestOneSlugPattern: the pattern core validates slugs with is SlugPattern, the one the HTTP
// schema is checked against.
func TestOneSlugPattern(t *testing.T) {
	if slugRegexp.String() != core.SlugPattern {
		t.Fatalf("slugRegexp %q, SlugPattern %q", slugRegexp.String(), core.SlugPattern)
	}
}
