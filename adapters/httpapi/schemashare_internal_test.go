package httpapi

import (
	"testing"

	"github.com/danielgtaylor/huma/v2"
)

// TestHandlersShareNoSchema: two handlers share no schema of their operations (parameters,
// request and response bodies, and the schemas inside them). huma.Register writes into the
// schemas it is given (PrecomputeMessages), and handlers are built side by side (package app's
// and the console's tests build one per test, in parallel): a schema shared by every handler,
// the events body's, was written by two builds at once, a concurrent map write that crashed
// the test binary now and then (go test -race ./adapters/httpapi showed where).
func TestHandlersShareNoSchema(t *testing.T) {
	t.Parallel()
	schemas := func() map[*huma.Schema]string {
		seen := map[*huma.Schema]string{}
		var walk func(s *huma.Schema, where string)
		walk = func(s *huma.Schema, where string) {
			if s == nil || seen[s] != "" {
				return
			}
			seen[s] = where
			walk(s.Items, where+".items")
			walk(s.Not, where+".not")
			if ap, ok := s.AdditionalProperties.(*huma.Schema); ok {
				walk(ap, where+".additionalProperties")
			}
			for name, p := range s.Properties {
				walk(p, where+"."+name)
			}
			for _, list := range [][]*huma.Schema{s.OneOf, s.AnyOf, s.AllOf} {
				for _, x := range list {
					walk(x, where+".of")
				}
			}
		}
		ops := 0
		cfg := Config{onOperation: func(op *huma.Operation) {
			ops++
			for _, p := range op.Parameters {
				walk(p.Schema, op.OperationID+" parameter "+p.Name)
			}
			if op.RequestBody != nil {
				for ct, mt := range op.RequestBody.Content {
					walk(mt.Schema, op.OperationID+" request "+ct)
				}
			}
			for status, r := range op.Responses {
				for ct, mt := range r.Content {
					walk(mt.Schema, op.OperationID+" response "+status+" "+ct)
				}
			}
		}}
		// Every optional group of operations on (none of them is called here).
		cfg.UseCases.AnalyticsUseCases = struct{ AnalyticsUseCases }{}
		New(cfg)
		if ops == 0 {
			t.Fatal("no operation was added")
		}
		return seen
	}
	a, b := schemas(), schemas()
	if len(a) == 0 {
		t.Fatal("no schema was seen")
	}
	for s, where := range a {
		if other, ok := b[s]; ok {
			t.Errorf("one schema in two handlers: %s (and %s)", where, other)
		}
	}
}
