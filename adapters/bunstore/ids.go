package bunstore

import (
	"reflect"
	"strings"

	"github.com/consentd/consentd/core"
)

// isID reports whether id is spelled the one way the store knows IDs: a UUID in lower-case
// hexadecimal with hyphens (8-4-4-4-12), as core generates them. Postgres would read "{…}",
// upper-case, unhyphenated and URN spellings into the same uuid, while SQLite compares text;
// checking the spelling before any query makes both find nothing under any other spelling,
// and keeps garbage (a NUL byte, which bun cannot even quote) from becoming a driver error.
func isID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := range len(id) {
		c := id[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}

// findIDs returns not_found for what unless every one of ids is spelled as an ID: a lookup,
// update or delete by another spelling finds nothing, as it does in memstore.
func findIDs(what string, ids ...string) error {
	for _, id := range ids {
		if !isID(id) {
			return core.Errorf(core.CodeNotFound, "%s not found", what)
		}
	}
	return nil
}

// findKey returns not_found for what when a text lookup key (project key, key hash, slug)
// holds a NUL byte: no stored key can, and bun cannot quote one.
func findKey(what, key string) error {
	if strings.IndexByte(key, 0) >= 0 {
		return core.Errorf(core.CodeNotFound, "%s not found", what)
	}
	return nil
}

// newID returns validation_error unless the ID of a row about to be created is spelled as an
// ID, so that no row is stored under a spelling that lookups would not find.
func newID(what, id string) error {
	if !isID(id) {
		return core.Errorf(core.CodeInvalid, "%s id %q is not a lower-case UUID", what, id)
	}
	return nil
}

// storable returns validation_error when a string anywhere in v (a model about to be written:
// fields, pointers, slices, map keys and values, nested structs) holds a NUL byte. Neither
// database stores one in text (Postgres text and jsonb refuse it) and bun cannot quote one: it
// would otherwise reach the client as an internal error.
func storable(what string, v any) error {
	if hasNUL(reflect.ValueOf(v)) {
		return core.Errorf(core.CodeInvalid, "%s: text must not contain NUL characters", what)
	}
	return nil
}

func hasNUL(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return strings.IndexByte(v.String(), 0) >= 0
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasNUL(v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if hasNUL(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if hasNUL(it.Key()) || hasNUL(it.Value()) {
				return true
			}
		}
	case reflect.Struct:
		// CanInterface is false exactly for the unexported fields (embedded ones of unexported
		// types included), as Type().Field(i).IsExported() would say, without building a
		// StructField for each field of each value: that was 2 % of the server's CPU per consent.
		for i := range v.NumField() {
			if f := v.Field(i); f.CanInterface() && hasNUL(f) {
				return true
			}
		}
	}
	return false
}
