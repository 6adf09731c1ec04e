package console

import "net/http"

// Patterns returns the route patterns of a handler made by New, for tests that walk every form.
func Patterns(h http.Handler) []string { return append([]string(nil), h.(*handler).patterns...) }
