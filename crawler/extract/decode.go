package extract

import (
	"encoding/binary"
	"mime"
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/html/charset"
)

// DecodeHTML returns body as UTF-8. colly has already converted bodies whose Content-Type header
// names a charset; otherwise a BOM or <meta charset> decides, and undeclared pages that are not
// valid UTF-8 are read as windows-1252, as browsers do.
func DecodeHTML(body []byte, contentType string) []byte {
	if containsFold(contentType, "charset") {
		if _, params, err := mime.ParseMediaType(contentType); err == nil && params["charset"] != "" {
			return body
		}
	}
	if isASCII(body) {
		return body
	}
	// Valid UTF-8 whose first 1024 bytes, where DetermineEncoding's prescan reads <meta>, name
	// no charset but UTF-8 is kept as it is (a UTF-16 BOM is invalid UTF-8): spare the prescan
	// its tokenizer.
	if onlyUTF8Declared(unsafe.String(&body[0], min(len(body), 1024))) && utf8.Valid(body) {
		return body
	}
	return charsetDecode(body)
}

// charsetDecode is DecodeHTML without its shortcuts: the charset package decides (the fuzz
// test holds the shortcuts to it).
func charsetDecode(body []byte) []byte {
	e, name, _ := charset.DetermineEncoding(body, "text/html")
	if name == "utf-8" || (name == "windows-1252" && utf8.Valid(body)) {
		return body
	}
	out, err := e.NewDecoder().Bytes(body)
	if err != nil {
		return body
	}
	return out
}

// onlyUTF8Declared reports whether every "charset" in head (ASCII case-insensitively) reads
// charset=utf-8, as <meta charset> and <meta http-equiv content> write it; true when there is none.
func onlyUTF8Declared(head string) bool {
	for i := 0; i+7 <= len(head); i++ {
		if head[i]|0x20 != 'c' || !strings.EqualFold(head[i:i+7], "charset") {
			continue
		}
		j := i + 7
		for j < len(head) && isHTMLSpace(head[j]) {
			j++
		}
		if j >= len(head) || head[j] != '=' {
			return false
		}
		for j++; j < len(head) && isHTMLSpace(head[j]); j++ {
		}
		if j < len(head) && (head[j] == '"' || head[j] == '\'') {
			j++
		}
		if j+5 >= len(head) || !strings.EqualFold(head[j:j+5], "utf-8") || strings.IndexByte("\"' \t\n\f\r>;/", head[j+5]) < 0 {
			return false
		}
		i = j + 5
	}
	return true
}

// isASCII reports whether b has no byte above 0x7f, eight bytes at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// containsFold reports whether s contains the lower-case ASCII word sub, ignoring ASCII case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
