package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/danielgtaylor/huma/v2/validation"

	"github.com/consentd/consentd/adapters/internal/response"
	"github.com/consentd/consentd/core"
)

// checkInput applies core.CheckText to every parameter and to every string (key or value) of
// a JSON request body before the operation runs, and refuses body keys that match a field of
// the schema only when case is ignored (Go's JSON decoding, and huma's validation with it,
// would take {"NAME": …} for "name"). It is generic: no operation lists its fields here, so a
// new operation is covered by being registered.
func checkInput(api huma.API) func(huma.Context, func(huma.Context)) {
	reg := api.OpenAPI().Components.Schemas
	return func(ctx huma.Context, next func(huma.Context)) {
		op := ctx.Operation()
		if err := checkParams(ctx, op); err != nil {
			writeInputError(api, ctx, err)
			return
		}
		if op.RequestBody != nil {
			if err := checkBody(ctx, op, reg); err != nil {
				writeInputError(api, ctx, err)
				return
			}
		}
		next(ctx)
	}
}

// bodyChecksItself, set to true in an operation's Metadata, says that its body type applies
// the same checks while decoding (consentBody), so that the body is read once.
const bodyChecksItself = "consentd.bodyChecksItself"

func writeInputError(api huma.API, ctx huma.Context, err error) {
	huma.WriteErr(api, ctx, response.Status(err), core.ErrorMessage(err)) //nolint:errcheck // written to the client
}

func checkParams(ctx huma.Context, op *huma.Operation) error {
	var query map[string][]string
	for _, p := range op.Parameters {
		switch p.In {
		case "path":
			if err := core.CheckText(p.Name, ctx.Param(p.Name)); err != nil {
				return err
			}
		case "query":
			if query == nil {
				u := ctx.URL()
				query = u.Query()
			}
			for _, v := range query[p.Name] {
				if err := core.CheckText(p.Name, v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkBody reads the body (within the operation's limit), checks it, and puts it back for
// huma. A body over the limit or not JSON is left for huma to refuse. Whatever the
// Content-Type says, a body that parses as JSON is checked: huma reads a missing or odd media
// type (";", "x+json") as JSON too.
func checkBody(ctx huma.Context, op *huma.Operation, reg huma.Registry) error {
	r, _ := humago.Unwrap(ctx)
	if r == nil || r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	limit := op.MaxBodyBytes
	if limit <= 0 {
		limit = 1 << 20
	}
	body := r.Body
	b, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err == nil && int64(len(b)) <= limit {
		r.Body = readCloser{bytes.NewReader(b), body} // all of it: the body said EOF
	} else {
		r.Body = readCloser{io.MultiReader(bytes.NewReader(b), body), body}
	}
	var tooLarge *http.MaxBytesError
	if err != nil && !errors.As(err, &tooLarge) {
		// A malformed chunked encoding or a body cut short: the client's fault, which huma
		// would answer with a 500.
		return core.Errorf(core.CodeInvalid, "body: could not be read (%v)", err)
	}
	if err != nil || int64(len(b)) > limit || len(bytes.TrimSpace(b)) == 0 {
		return nil // over the limit: huma answers 413
	}
	if op.Metadata[bodyChecksItself] == true {
		return nil // read, so that a body cut short is the client's fault, but checked by its type
	}
	var schema *huma.Schema
	if mt := op.RequestBody.Content["application/json"]; mt != nil {
		schema = mt.Schema
	}
	if err := json.Unmarshal(b, new(json.RawMessage)); err != nil {
		if ct := r.Header.Get("Content-Type"); ct != "" && !strings.Contains(strings.ToLower(ct), "json") {
			return nil // not JSON, and not said to be: huma answers 415
		}
		return malformedJSON(b, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil // cannot happen after the check above; huma would say what it is
	}
	return walkJSON("", v, schema, reg)
}

// malformedJSON says where a body stops being JSON: line, column and byte offset.
func malformedJSON(b []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return core.Errorf(core.CodeInvalid, "body: not valid JSON: %v", err)
	}
	// Offset counts the bytes read, the faulty one included; at the end, there is none.
	off, msg := int(min(max(se.Offset, 1), int64(len(b))))-1, se.Error()
	if strings.Contains(msg, "unexpected end") {
		off, msg = len(b), "it ends before the JSON value is complete"
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(b[:off], '\n')
	return core.Errorf(core.CodeInvalid, "body: not valid JSON at line %d, column %d (byte %d): %s", line, col, off, msg)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// walkJSON checks every string of v, naming it by its JSON path (cookies[0].name). schema,
// when known, is v's schema: keys that only case-fold to one of its properties are unknown.
func walkJSON(path string, v any, schema *huma.Schema, reg huma.Registry) error {
	if schema != nil && schema.Ref != "" {
		schema = reg.SchemaFromRef(schema.Ref)
	}
	switch v := v.(type) {
	case string:
		return core.CheckText(fieldName(path), v)
	case []any:
		var items *huma.Schema
		if schema != nil {
			items = schema.Items
			if err := checkArray(path, v, schema, reg); err != nil {
				return err
			}
		}
		for i, x := range v {
			if err := walkJSON(path+"["+strconv.Itoa(i)+"]", x, items, reg); err != nil {
				return err
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys) // the first fault named is the same every time
		for _, k := range keys {
			field := k
			if path != "" {
				field = path + "." + k
			}
			if err := core.CheckText(fieldName(path)+" key", k); err != nil {
				return err
			}
			var sub *huma.Schema
			if schema != nil {
				if p, ok := schema.Properties[k]; ok {
					sub = p
				} else {
					for name := range schema.Properties {
						if strings.EqualFold(name, k) {
							return core.Errorf(core.CodeInvalid, "%s: unknown field (did you mean %q?)", field, name)
						}
					}
					if ap, ok := schema.AdditionalProperties.(*huma.Schema); ok {
						sub = ap
					}
				}
			}
			if err := walkJSON(field, v[k], sub, reg); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkArray refuses, before huma validates the body, an array longer than its schema's
// maxItems, and objects or arrays among the items of a uniqueItems array of scalars. huma
// checks uniqueItems before maxItems and before the items' types, comparing every pair of
// items that are objects or arrays (reflect.DeepEqual, since v2.39.0; a panic before): a
// body of distinct objects under the size limit would cost minutes of CPU.
func checkArray(path string, v []any, schema *huma.Schema, reg huma.Registry) error {
	if schema.MaxItems != nil && len(v) > *schema.MaxItems {
		return core.Errorf(core.CodeInvalid, "validation failed: %s: "+validation.MsgExpectedMaxItems, fieldName(path), *schema.MaxItems)
	}
	if !schema.UniqueItems || schema.Items == nil {
		return nil
	}
	items := schema.Items
	if items.Ref != "" {
		items = reg.SchemaFromRef(items.Ref)
	}
	if items == nil || items.Type == huma.TypeObject || items.Type == huma.TypeArray || items.Type == "" {
		return nil
	}
	for i, x := range v {
		switch x.(type) {
		case map[string]any, []any:
			return core.Errorf(core.CodeInvalid, "validation failed: %s[%d]: expected %s", fieldName(path), i, items.Type)
		}
	}
	return nil
}

func fieldName(path string) string {
	if path == "" {
		return "body"
	}
	return path
}
