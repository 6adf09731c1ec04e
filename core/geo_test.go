package core_test

import (
	"testing"

	"github.com/consentd/consentd/core"
)

func TestLocationOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		country, region string
		want            core.Location
	}{
		{"", "", core.Location{}},
		{"fr", "", core.Location{Country: "FR"}},
		{" US ", "ca", core.Location{Country: "US", Region: "US-CA"}},
		{"US", "US-CA", core.Location{Country: "US", Region: "US-CA"}},
		{"", "us-co", core.Location{Country: "US", Region: "US-CO"}},
		{"CA", "QC", core.Location{Country: "CA", Region: "CA-QC"}},
		{"FR", "75C", core.Location{Country: "FR", Region: "FR-75C"}},
		{"DE", "US-CA", core.Location{Country: "DE"}},
		{"", "CA", core.Location{}},
		{"USA", "CA", core.Location{}},
		{"US", "CALI", core.Location{Country: "US"}},
		{"US", "C_", core.Location{Country: "US"}},
		{"US", "-", core.Location{Country: "US"}},
		{"XX1", "", core.Location{}},
		{"XX", "", core.Location{}},
		{"T1", "", core.Location{}},
		{"ZZ", "", core.Location{}},
		{"QM", "", core.Location{}},
		{"QA", "", core.Location{Country: "QA"}},
		{"", "XX-CA", core.Location{}},
	} {
		if got := core.LocationOf(tc.country, tc.region); got != tc.want {
			t.Errorf("LocationOf(%q, %q) = %+v, want %+v", tc.country, tc.region, got, tc.want)
		}
	}
}
