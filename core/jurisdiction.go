package core

// Jurisdictions of consent records.
const (
	JurisdictionGDPR = "gdpr"
	JurisdictionCCPA = "ccpa"
	JurisdictionNone = "none"
)

// Jurisdictions returns the jurisdictions a consent record may have.
func Jurisdictions() []string { return []string{JurisdictionGDPR, JurisdictionCCPA, JurisdictionNone} }

// JurisdictionOf is the one function that decides a visitor's regime, the record's
// jurisdiction: the law of the visitor's place, gdpr in the EU, the EEA, the United Kingdom and
// Switzerland (InGDPRRegion, from regions.json), ccpa in the United States, none elsewhere or
// where the place is unknown. It is the same with regional rules and without: what a rule
// makes the banner do is recorded beside it (the rule, VisitorRule.Ref), and does not change
// which law the visitor is under.
func JurisdictionOf(country string) string {
	switch {
	case InGDPRRegion(country):
		return JurisdictionGDPR
	case country == "US":
		return JurisdictionCCPA
	default:
		return JurisdictionNone
	}
}
