package httpapi

import (
	"net/http"
	"slices"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
)

// What the web console shows exactly as the API does.

// ConsentCSVColumns is the header of the CSV export of consent records.
func ConsentCSVColumns() []string { return slices.Clone(exportColumns) }

// ErrorStatus is the HTTP status the API answers err with: statusOf of its code.
func ErrorStatus(err error) int {
	if s, ok := statusOf[core.ErrorCode(err)]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// SnippetFrameworks returns the frameworks a setup snippet is written for, the default first.
func SnippetFrameworks() []string { return slices.Clone(snippetFrameworks[:]) }

// ConsentCSVRow is a consent record as a row of the CSV export.
func ConsentCSVRow(r *consent.ConsentRecord) []string { return csvRow(r) }
