package console_test

import (
	"os"
	"testing"

	"github.com/consentd/consentd/core/identity"
)

func TestMain(m *testing.M) {
	// The console's tests sign in, set up two-step sign-in and hit the sign-in limit many
	// times: with argon2id at its production cost, hashing was most of their CPU (in a
	// plain go test ./..., the package took 28.8 s without these; alone, 1.4 s with them). The hash records its
	// parameters, so the cheap ones are checked as they were made.
	identity.ArgonTime, identity.ArgonMemory = 1, 1024
	os.Exit(m.Run())
}
