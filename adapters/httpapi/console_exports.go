package httpapi

import (
	"slices"

	"github.com/consentd/consentd/core"
)

// What the web console shows exactly as the API does.

// SetupSnippet returns the setup snippet's code and instructions for framework ("script",
// "react" or "next"; anything else is "script"), loading the runtime from src for the site
// projectKey, exactly as GET /sites/{id}/setup-snippet answers them.
func SetupSnippet(framework, src, projectKey string) (code, instructions string) {
	s := makeSnippet(framework, src, projectKey)
	return s.Code, s.Instructions
}

// ConsentCSVColumns is the header of the CSV export of consent records.
func ConsentCSVColumns() []string { return slices.Clone(exportColumns) }

// ConsentCSVRow is a consent record as a row of the CSV export.
func ConsentCSVRow(r *core.ConsentRecord) []string { return csvRow(r) }
