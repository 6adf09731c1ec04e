package library_test

import (
	"testing"
	"time"

	"github.com/consentd/consentd/library"
)

func TestDescribeDuration(t *testing.T) {
	day := 24 * time.Hour
	for d, want := range map[time.Duration]string{
		0: "session", -time.Second: "session", time.Second: "1 second", 45 * time.Second: "45 seconds",
		30 * time.Minute: "30 minutes", time.Hour: "1 hour", day: "1 day", 30 * day: "1 month",
		395 * day: "1 year", 2 * 365 * day: "2 years", 400 * 24 * time.Hour * 2: "2 years",
	} {
		if got := library.DescribeDuration(d); got != want {
			t.Errorf("DescribeDuration(%s) = %q, want %q", d, got, want)
		}
	}
}
