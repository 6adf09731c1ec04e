package core

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// countryCode keeps a country only when it is two ASCII capital letters.
func countryCode(c string) string {
	if len(c) == 2 && c[0] >= 'A' && c[0] <= 'Z' && c[1] >= 'A' && c[1] <= 'Z' {
		return c
	}
	return ""
}

// HashHexLength is the length of every hash consentd shows: hex SHA-256.
const HashHexLength = 64

// GenesisHash is the previous hash of a site's first batch.
var GenesisHash = strings.Repeat("0", 64)

// CanonicalTime is the form of createdAt in the canonical line: UTC, microseconds, always six
// digits ("2026-03-01T10:00:00.000000Z").
func CanonicalTime(t time.Time) string { return t.UTC().Format(CanonicalTimeLayout) }

const CanonicalTimeLayout = "2006-01-02T15:04:05.000000Z"

func Sha256Hex(s string) string {
	var buf [256]byte
	return HexSum(sha256.Sum256(append(buf[:0], s...)))
}

// HexSum is a SHA-256 sum in hex, as hex.EncodeToString writes it, with one allocation.
func HexSum(sum [sha256.Size]byte) string {
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}

func OrEmptySlice[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
