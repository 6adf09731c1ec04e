package core

import (
	"unicode"
	"unicode/utf8"
)

// CheckText refuses text that no store can hold or no person meant to send: invalid UTF-8,
// NUL and the other control characters. Tab, line feed and carriage return are allowed.
func CheckText(field, s string) error {
	if !utf8.ValidString(s) {
		return Errorf(CodeInvalid, "%s: must be valid UTF-8", field)
	}
	for _, r := range s {
		if r != '\t' && r != '\n' && r != '\r' && unicode.IsControl(r) {
			return Errorf(CodeInvalid, "%s: must not contain control characters", field)
		}
	}
	return nil
}
