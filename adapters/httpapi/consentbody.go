package httpapi

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/tidwall/gjson"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/consent"
	"github.com/consentd/consentd/core/experiment"
	"github.com/consentd/consentd/core/gpp"
	"github.com/consentd/consentd/core/tcf"
)

// consentBody is the body of the public consent POST, the request every visitor's decision
// makes. Other operations' bodies are read three times: checkInput decodes them to check every
// string (core.CheckText) and refuse case-folded keys, huma decodes them again to validate the
// schema, and once more into the struct. This one is read once: the operation skips both
// (bodyChecksItself, SkipValidateBody) and UnmarshalJSON does all three in one pass, with the
// same outcomes: the limits come from the struct tags below, which are also the OpenAPI schema.
type consentBody struct {
	VisitorID      *string         `json:"visitorId,omitempty" nullable:"false" minLength:"1" maxLength:"100" doc:"Generated when absent."`
	Categories     map[string]bool `json:"categories" doc:"Category slug to decision; required categories are always stored true, unmentioned ones false."`
	ConsentVersion int             `json:"consentVersion" minimum:"1" maximum:"1000000"`
	DoNotSell      bool            `json:"doNotSell,omitempty"`
	Action         *string         `json:"action,omitempty" nullable:"false" enum:"accept_all,reject_all,custom,gpc" doc:"Derived from the categories when absent."`
	GPC            bool            `json:"gpc,omitempty" doc:"The page saw navigator.globalPrivacyControl; ORed with the Sec-GPC header."`
	Language       string          `json:"language,omitempty" maxLength:"35" doc:"Language of the texts the banner showed (a textTranslations key); empty for the default texts. Part of the record's snapshot."`
	RuntimeVersion string          `json:"runtimeVersion,omitempty" maxLength:"32" doc:"Version of the banner runtime that showed the banner. Part of the record's snapshot."`
	PageURL        string          `json:"pageUrl,omitempty" maxLength:"500" doc:"The page the decision was made on; only its origin and path are stored."`
	TCString       string          `json:"tcString,omitempty" maxLength:"8192" doc:"On a site with TCF on: the IAB TC string (TCF 2.3) of this decision. Decoded by the server: it must be well formed, made with this deployment's CMP ID, service-specific, with a disclosed-vendors segment, and name a Global Vendor List version this server has served. Stored and sealed with the record."`
	ACString       string          `json:"acString,omitempty" maxLength:"8192" doc:"On a site with TCF on: Google's Additional Consent string v2 (2~1.35~dv.9.21), naming only the site's tcf.googleAtpIds. Stored and sealed with the record."`
	GPPString      string          `json:"gppString,omitempty" maxLength:"8192" doc:"On a site with GPP on: the IAB GPP string the runtime's __gpp gave for this decision (docs/gpp.md). It must be a GPP version 1 string whose header lists as many sections as it has. Kept in the record, sealed in the chain (consentd-record-v4) and exported."`
	Variant        string          `json:"variant,omitempty" maxLength:"64" doc:"The A/B test variant the runtime showed (docs/experiments.md): the experiment's ID without dashes, _ and the variant's key. Kept in the record, sealed in the chain (consentd-record-v5), listed and exported."`
	GVLVersion     int             `json:"gvlVersion,omitempty" minimum:"1" maximum:"4095" doc:"The Global Vendor List version the TCF module decided under; it must be the tcString's vendorListVersion (recorded from the tcString when absent)."`
	IdempotencyKey string          `json:"key,omitempty" minLength:"8" maxLength:"64" doc:"The idempotency key: a key the client chooses once per decision (the runtime: 128 random bits) and sends again with every retry of it. A decision already stored under the key is answered with its original receipt (201, the same id and recordHash) and nothing new is stored, so that a post whose answer was lost (a timeout, a dropped connection, a 503) can be sent again without the proof holding the decision twice. Unique per site; kept with the record, outside its hash."`

	// refused is what UnmarshalJSON found wrong, answered by the handler as a 400: returned
	// from UnmarshalJSON it would reach the client through huma's wrapping instead.
	refused error
}

// TransformSchema declares the rules core applies to runtimeVersion, pageUrl, tcString,
// acString and gppString (their patterns from core, their one source), which the body's own
// validation leaves to core.
func (consentBody) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if v := s.Properties["runtimeVersion"]; v != nil {
		v.Pattern = core.RuntimeVersionPattern
		v.PrecomputeMessages()
	}
	for name, pattern := range map[string]string{"tcString": tcf.TCStringPattern, "acString": tcf.ACStringPattern, "gppString": gpp.GPPStringPattern,
		"key": consent.IdempotencyKeyPattern, "variant": experiment.VariantIDPattern} {
		if v := s.Properties[name]; v != nil {
			v.Pattern = pattern
			v.PrecomputeMessages()
		}
	}
	if v := s.Properties["pageUrl"]; v != nil {
		v.Format = "uri"
		v.PrecomputeMessages()
	}
	return s
}

// consentField is a property of consentBody's schema, read from its tags.
type consentField struct {
	name                 string
	index                int          // in consentBody's fields, for seenFields
	kind                 reflect.Kind // String, Int, Bool or Map
	required             bool
	minLength, maxLength int // -1 when absent
	minimum, maximum     float64
	enum                 []string
}

// consentFields are consentBody's properties by JSON name.
var consentFields = func() map[string]*consentField {
	t := reflect.TypeFor[consentBody]()
	out := map[string]*consentField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || !f.IsExported() {
			continue
		}
		typ := f.Type
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		cf := &consentField{name: name, index: len(out), kind: typ.Kind(), required: f.Type.Kind() != reflect.Pointer && !strings.Contains(opts, "omitempty"),
			minLength: tagInt(f, "minLength"), maxLength: tagInt(f, "maxLength"), minimum: math.Inf(-1), maximum: math.Inf(1)}
		if v := tagInt(f, "minimum"); v >= 0 {
			cf.minimum = float64(v)
		}
		if v := tagInt(f, "maximum"); v >= 0 {
			cf.maximum = float64(v)
		}
		if e := f.Tag.Get("enum"); e != "" {
			cf.enum = strings.Split(e, ",")
		}
		out[name] = cf
	}
	if len(out) > len(seenFields{}.present) {
		panic("consentBody: more properties than seenFields holds")
	}
	return out
}()

// requiredConsentFields are consentFields' required properties.
var requiredConsentFields = func() []*consentField {
	var out []*consentField
	for _, f := range consentFields {
		if f.required {
			out = append(out, f)
		}
	}
	return out
}()

// seenFields records, per property of consentBody, whether the body had it and whether the
// last value was not null (a map of them, per body, cost more than the decoding).
type seenFields struct{ present, notNull [32]bool }

func tagInt(f reflect.StructField, tag string) int {
	s := f.Tag.Get(tag)
	if s == "" {
		return -1
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(fmt.Sprintf("consentBody.%s: tag %s=%q", f.Name, tag, s))
	}
	return n
}

// UnmarshalJSON decodes the consent POST's body (syntactically valid JSON: json.Unmarshal
// checks that before calling it) in one pass:
//   - every string, keys included, must pass core.CheckText, and a key that matches a
//     property only when case is ignored is refused, as checkInput does for other bodies (the
//     first fault in sorted key order is named, as there);
//   - then the schema, as huma validates it: types, required properties, lengths in
//     characters, bounds, the enum, no other property; null on an optional property counts as
//     absent; all faults are named, in key order;
//   - strings decode as encoding/json decodes them (escapes, invalid UTF-8 replaced), and a
//     repeated key's last value wins.
//
// A fault is kept in refused and reported by the handler with the contract's error body.
func (b *consentBody) UnmarshalJSON(data []byte) error {
	*b = consentBody{}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		b.refused = core.Errorf(core.CodeInvalid, "validation failed: expected object")
		return nil
	}
	var (
		textKey, textErr = "", error(nil) // the first text or case fault, by sorted key
		faults           = map[string]string{}
		seen             seenFields
	)
	textFault := func(sortKey string, err error) {
		if textErr == nil || sortKey < textKey {
			textKey, textErr = sortKey, err
		}
	}
	root.ForEach(func(k, v gjson.Result) bool {
		key := jsonString(k.Raw)
		if err := core.CheckText("body key", key); err != nil {
			textFault(key, err)
			return true
		}
		f := consentFields[key]
		if f == nil {
			for name := range consentFields {
				if strings.EqualFold(name, key) {
					textFault(key, core.Errorf(core.CodeInvalid, "%s: unknown field (did you mean %q?)", key, name))
					return true
				}
			}
			textWalk(key, v, textFault)
			faults[key] = key + ": unexpected property"
			return true
		}
		delete(faults, key) // a repeated key: the last value counts
		seen.present[f.index], seen.notNull[f.index] = true, v.Type != gjson.Null
		if msg := b.set(f, v, textFault); msg != "" {
			faults[key] = msg
		}
		return true
	})
	if textErr != nil {
		b.refused = textErr
		return nil
	}
	var msgs []string
	for _, f := range requiredConsentFields {
		if !seen.present[f.index] {
			faults[" "+f.name] = "expected required property " + f.name + " to be present"
		}
	}
	keys := make([]string, 0, len(faults))
	for k := range faults {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		msgs = append(msgs, faults[k])
	}
	if len(msgs) > 0 {
		b.refused = core.Errorf(core.CodeInvalid, "validation failed: %s", strings.Join(msgs, "; "))
	}
	return nil
}

// set stores v in the field f names and returns what is wrong with it, named by its path as
// huma names it ("" when nothing).
func (b *consentBody) set(f *consentField, v gjson.Result, textFault func(string, error)) string {
	msg := b.value(f, v, textFault)
	if msg != "" && !strings.HasPrefix(msg, f.name+".") {
		msg = f.name + ": " + msg
	}
	return msg
}

var kindNames = map[reflect.Kind]string{reflect.String: "string", reflect.Int: "integer", reflect.Bool: "boolean", reflect.Map: "object"}

func (b *consentBody) value(f *consentField, v gjson.Result, textFault func(string, error)) string {
	if v.Type == gjson.Null {
		if f.required {
			return "expected " + kindNames[f.kind]
		}
		return "" // absent
	}
	switch f.kind {
	case reflect.String:
		if v.Type != gjson.String {
			return "expected string"
		}
		s := jsonString(v.Raw)
		if err := core.CheckText(f.name, s); err != nil {
			textFault(f.name, err)
			return ""
		}
		n := utf8.RuneCountInString(s)
		if f.minLength >= 0 && n < f.minLength {
			return "expected length >= " + strconv.Itoa(f.minLength)
		}
		if f.maxLength >= 0 && n > f.maxLength {
			return "expected length <= " + strconv.Itoa(f.maxLength)
		}
		if f.enum != nil && !slices.Contains(f.enum, s) {
			return `expected value to be one of "` + strings.Join(f.enum, ", ") + `"`
		}
		switch f.name {
		case "visitorId":
			vs := s // only the pointed-to strings go to the heap, not every string field
			b.VisitorID = &vs
		case "action":
			as := s
			b.Action = &as
		case "language":
			b.Language = s
		case "runtimeVersion":
			b.RuntimeVersion = s
		case "pageUrl":
			b.PageURL = s
		case "tcString":
			b.TCString = s
		case "acString":
			b.ACString = s
		case "gppString":
			b.GPPString = s
		case "variant":
			b.Variant = s
		case "key":
			b.IdempotencyKey = s
		}
	case reflect.Bool:
		if v.Type != gjson.True && v.Type != gjson.False {
			return "expected boolean"
		}
		switch f.name {
		case "doNotSell":
			b.DoNotSell = v.Type == gjson.True
		case "gpc":
			b.GPC = v.Type == gjson.True
		}
	case reflect.Int:
		if v.Type != gjson.Number {
			return "expected integer"
		}
		x := v.Float()
		switch {
		case x < f.minimum:
			return "expected number >= " + strconv.FormatFloat(f.minimum, 'g', -1, 64)
		case x > f.maximum:
			return "expected number <= " + strconv.FormatFloat(f.maximum, 'g', -1, 64)
		}
		n, err := strconv.Atoi(v.Raw)
		if err != nil {
			return "expected integer"
		}
		switch f.name {
		case "consentVersion":
			b.ConsentVersion = n
		case "gvlVersion":
			b.GVLVersion = n
		}
	case reflect.Map:
		if !v.IsObject() {
			return "expected object"
		}
		cats := map[string]bool{}
		var msg string
		v.ForEach(func(k, x gjson.Result) bool {
			slug := jsonString(k.Raw)
			if err := core.CheckText(f.name+" key", slug); err != nil {
				textFault(f.name+"\x00"+slug, err)
				return true
			}
			if x.Type != gjson.True && x.Type != gjson.False {
				if msg == "" {
					msg = f.name + "." + slug + ": expected boolean"
				}
				return true
			}
			cats[slug] = x.Type == gjson.True
			return true
		})
		if msg != "" {
			return msg
		}
		b.Categories = cats
	}
	return ""
}

// textWalk checks the strings of v, the value of an unknown property, as checkInput would.
func textWalk(path string, v gjson.Result, textFault func(string, error)) {
	switch {
	case v.Type == gjson.String:
		if err := core.CheckText(path, jsonString(v.Raw)); err != nil {
			textFault(path, err)
		}
	case v.IsObject(), v.IsArray():
		i := 0
		v.ForEach(func(k, x gjson.Result) bool {
			sub := path + "[" + strconv.Itoa(i) + "]"
			if v.IsObject() {
				key := jsonString(k.Raw)
				if err := core.CheckText(path+" key", key); err != nil {
					textFault(path+"\x00"+key, err)
					return true
				}
				sub = path + "." + key
			}
			i++
			textWalk(sub, x, textFault)
			return true
		})
	}
}

// jsonString decodes a JSON string token as encoding/json does: without escapes and valid
// UTF-8 (nearly always) it is the text between the quotes; otherwise encoding/json decodes it,
// replacing invalid UTF-8 and lone surrogates with U+FFFD.
func jsonString(raw string) string {
	if len(raw) >= 2 {
		inner := raw[1 : len(raw)-1]
		if !strings.ContainsRune(inner, '\\') && utf8.ValidString(inner) {
			return inner
		}
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return raw // not reached: json.Unmarshal checked the document first
	}
	return s
}
