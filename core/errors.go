package core

import (
	"errors"
	"fmt"
)

// Code is the machine-readable kind of an error, as it appears on the wire in `error.code`.
type Code string

// Error codes. The HTTP adapter maps each to a status in one place.
const (
	CodeInvalid      Code = "validation_error"
	CodeUnauthorized Code = "unauthorized"
	// CodeForbidden: the caller is known but its role or site scope does not allow this.
	CodeForbidden   Code = "forbidden"
	CodeNotFound    Code = "not_found"
	CodeConflict    Code = "conflict"
	CodeRateLimited Code = "rate_limited"
	CodeInternal    Code = "internal"
	// CodeUnavailable: the store (the database) cannot answer now (connection lost, shut
	// down, read-only, disk full, I/O error); the same request is worth sending again later.
	CodeUnavailable Code = "unavailable"
	// CodeUnsupportedMedia: the request body is not in a format the endpoint reads (JSON).
	CodeUnsupportedMedia Code = "unsupported_media_type"
)

// Codes returns every error code, for the API's enum and its parity test.
func Codes() []Code {
	return []Code{CodeInvalid, CodeUnauthorized, CodeForbidden, CodeNotFound, CodeConflict, CodeRateLimited, CodeInternal, CodeUnavailable, CodeUnsupportedMedia}
}

// Error is a domain error: a code, a message fit for the client, and the wrapped cause.
type Error struct {
	Code    Code
	Message string
	// Field is the path of the input field a validation error is about, as the API names it
	// ("name", "colors.primary", "regionRules[2].regions[0]"); "" when the error names none.
	// The message starts with it: "<field>: <what is wrong>".
	Field string
	Err   error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldErrorf returns a validation error about the input field at path field: its message is
// "<field>: " and the formatted text, its Field the path, which a form reads to mark the input
// rather than parsing the message.
func FieldErrorf(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Message: field + ": " + fmt.Sprintf(format, args...), Field: field}
}

// ErrorField returns the field path of the first *Error in err's chain, "" when it names none.
func ErrorField(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// Wrap returns an *Error with the code and message that wraps cause.
func Wrap(code Code, cause error, message string) *Error {
	return &Error{Code: code, Message: message, Err: cause}
}

// ErrorCode returns the code of the first *Error in err's chain; CodeInternal when there is
// none, "" for a nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrorMessage returns the client-facing message of err. Internal errors get a generic message
// so that nothing internal leaks.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code != CodeInternal {
		return e.Message
	}
	return "internal error"
}

// IsNotFound reports whether err is a not-found error.
func IsNotFound(err error) bool { return ErrorCode(err) == CodeNotFound }

// IsUnavailable reports whether err is an unavailable error: the store cannot answer now.
func IsUnavailable(err error) bool { return ErrorCode(err) == CodeUnavailable }

// IsConflict reports whether err is a conflict error.
func IsConflict(err error) bool { return ErrorCode(err) == CodeConflict }

// Temporary marks err as worth retrying (a timeout, a 5xx from a scan target). Scan job runners
// retry temporary failures a bounded number of times.
func Temporary(err error) error { return &temporary{err} }

// IsTemporary reports whether err was marked with Temporary.
func IsTemporary(err error) bool {
	var t *temporary
	return errors.As(err, &t)
}

type temporary struct{ error }

func (t *temporary) Unwrap() error { return t.error }
