package response

import (
	"maps"
	"net/http"

	"github.com/consentd/consentd/core"
)

// statusOf is the one table from error code to HTTP status.
var statusOf = map[core.Code]int{
	core.CodeInvalid:          http.StatusBadRequest,
	core.CodeUnauthorized:     http.StatusUnauthorized,
	core.CodeForbidden:        http.StatusForbidden,
	core.CodeNotFound:         http.StatusNotFound,
	core.CodeConflict:         http.StatusConflict,
	core.CodeRateLimited:      http.StatusTooManyRequests,
	core.CodeInternal:         http.StatusInternalServerError,
	core.CodeUnsupportedMedia: http.StatusUnsupportedMediaType,
}

// Status is the HTTP status of err: the status of its code (core.ErrorCode), 500 for a code
// the table does not know.
func Status(err error) int { return StatusOf(core.ErrorCode(err)) }

// StatusOf is the HTTP status of an error code, 500 for a code the table does not know.
func StatusOf(code core.Code) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Statuses returns a copy of the table from error code to status (for the API's reverse
// mapping of statuses produced outside core, and the tests).
func Statuses() map[core.Code]int { return maps.Clone(statusOf) }
