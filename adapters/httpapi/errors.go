package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
)

// codeOf maps a status produced outside core (by huma or net/http) back to a wire code.
func codeOf(status int) core.Code {
	switch {
	case status == http.StatusUnprocessableEntity:
		return core.CodeInvalid
	case status == http.StatusServiceUnavailable:
		return core.CodeUnavailable
	case status >= 500:
		return core.CodeInternal
	}
	for c, s := range response.Statuses() {
		if s == status {
			return c
		}
	}
	return core.CodeInvalid // 405, 413, 415 and other client errors
}

// ErrorBody is the body of every error response: {error: {code, message}}.
type ErrorBody struct {
	status int
	Err    ErrorDetail `json:"error"`
}

// ErrorDetail says what went wrong.
type ErrorDetail struct {
	Code    string `json:"code" enum:"validation_error,unauthorized,forbidden,not_found,conflict,rate_limited,internal,unavailable,unsupported_media_type" doc:"Stable machine-readable error kind."`
	Message string `json:"message" doc:"Human-readable explanation; validation messages name the offending field."`
}

// Error implements error.
func (e *ErrorBody) Error() string { return e.Err.Code + ": " + e.Err.Message }

// GetStatus implements huma.StatusError.
func (e *ErrorBody) GetStatus() int { return e.status }

// GetHeaders implements huma.HeadersError: a 503 (the store is unavailable) says when to try
// again (Retry-After).
func (e *ErrorBody) GetHeaders() http.Header {
	h := http.Header{}
	response.SetRetryAfter(h, e.status)
	return h
}

// huma.NewError is a package-level hook of huma's, set once here rather than by every
// handler New builds: tests build handlers side by side, and the race detector saw each
// build's assignment race with the others' reads.
func init() { huma.NewError = newError }

// newError replaces huma.NewError so that every error huma produces (validation, malformed
// JSON, body too large) has our body, and 422 becomes 400.
func newError(status int, msg string, errs ...error) huma.StatusError {
	if status == http.StatusUnprocessableEntity {
		status = http.StatusBadRequest
	}
	var details []string
	for _, e := range errs {
		if e == nil {
			continue
		}
		var d *huma.ErrorDetail
		if errors.As(e, &d) {
			loc := strings.TrimPrefix(d.Location, "body.")
			if loc != "" && loc != "body" {
				details = append(details, loc+": "+d.Message)
				continue
			}
			details = append(details, d.Message)
			continue
		}
		details = append(details, e.Error())
	}
	code := codeOf(status)
	if status == http.StatusUnsupportedMediaType {
		got := ""
		for _, d := range details {
			if _, ct, ok := strings.Cut(d, huma.ErrUnknownContentType.Error()+": "); ok {
				got = " (got " + ct + ")"
			}
		}
		return &ErrorBody{status: status, Err: ErrorDetail{Code: string(code),
			Message: "the body must be JSON: send it with Content-Type: application/json" + got}}
	}
	if code == core.CodeInternal {
		msg = "internal error"
	} else if len(details) > 0 {
		msg = strings.TrimSuffix(msg, ".") + ": " + strings.Join(details, "; ")
	}
	return &ErrorBody{status: status, Err: ErrorDetail{Code: string(code), Message: msg}}
}

// fail converts an error from core to the response error, logging internal ones with their
// cause (the client sees a generic message).
func (h *handlers) fail(ctx context.Context, err error) error {
	code := core.ErrorCode(err)
	status := response.StatusOf(code)
	if status >= 500 {
		h.log.ErrorContext(ctx, "request failed", slog.String("code", string(code)), slog.Any("err", err))
	}
	return &ErrorBody{status: status, Err: ErrorDetail{Code: string(code), Message: core.ErrorMessage(err)}}
}

// writeError writes the error body outside huma (middleware, plain handlers).
func writeError(w http.ResponseWriter, status int, code core.Code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	response.SetRetryAfter(w.Header(), status)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(&ErrorBody{Err: ErrorDetail{Code: string(code), Message: msg}}) //nolint:errcheck // the client went away
}
