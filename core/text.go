package core

import (
	"fmt"
	"unicode/utf8"
)

// CheckText returns a validation error naming field when value is not text that every store
// can hold and every client can show: invalid UTF-8, NUL, or another C0 control character or
// DEL. Tab, newline and carriage return are text.
//
// Postgres refuses NUL and invalid UTF-8 in text columns outright, so without this check such
// input reaches the store and fails there as an internal error.
func CheckText(field, value string) error {
	for i, r := range value {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(value[i:]); size <= 1 {
				return FieldErrorf(field, "must be valid UTF-8 (invalid byte at offset %d)", i)
			}
		}
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return FieldErrorf(field, "must not contain control characters (found %s at offset %d)", controlName(r), i)
		}
	}
	return nil
}

func controlName(r rune) string {
	if r == 0 {
		return "NUL"
	}
	return fmt.Sprintf("U+%04X", r)
}
