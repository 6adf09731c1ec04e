package core

import "time"

// DisplaysGPCHonored reports whether, on day now, the law of a US state (ISO 3166-2, "US-CA")
// requires showing a visitor whose opt-out preference signal was honoured that it was (the law
// table's gpcDisplayRequiredFrom; California, CCPA regulations §7025(c)(6)).
func DisplaysGPCHonored(region string, now time.Time) bool {
	l, ok := USStateLawOf(region)
	return ok && l.GPCDisplayRequiredFrom != "" && l.GPCDisplayRequiredFrom <= now.UTC().Format(time.DateOnly)
}
