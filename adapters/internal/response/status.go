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
	core.CodeUnavailable:      http.StatusServiceUnavailable,
	core.CodeUnsupportedMedia: http.StatusUnsupportedMediaType,
}

// RetryAfter is the Retry-After header (in seconds) of every 503 answer: the store is
// unavailable, and a client should send the same request again after this long. A store that
// comes back is serving again within about a second (a new connection per request), so a
// short wait costs a retrying client little.
const RetryAfter = "2"

// SetRetryAfter adds Retry-After to h when status is 503, the answer of an unavailable store.
func SetRetryAfter(h http.Header, status int) {
	if status == http.StatusServiceUnavailable && h.Get("Retry-After") == "" {
		h.Set("Retry-After", RetryAfter)
	}
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
