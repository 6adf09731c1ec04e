package banner

import (
	"math"
	"strconv"
)

// The banner runtime writes its buttons' text in black or white, whichever suits the button's
// colour (onColor in adapters/httpapi/bannerjs/ui.js); the compliance rules compute the
// contrast the visitor gets from the same choice. The runtime's copy is kept equal to this one
// by a browser parity test in that package.

// Button text colours the runtime picks between.
const (
	ButtonTextDark  = "#111111"
	ButtonTextLight = "#ffffff"
)

// buttonTextLuminance is the relative luminance above which a button gets dark text.
const buttonTextLuminance = 0.4

// RelativeLuminance is a "#rgb" or "#rrggbb" colour's relative luminance (WCAG 2.x, 0 for
// black to 1 for white); ok is false for anything else.
func RelativeLuminance(hex string) (lum float64, ok bool) {
	if len(hex) != 4 && len(hex) != 7 || hex[0] != '#' {
		return 0, false
	}
	x := hex[1:]
	if len(x) == 3 {
		x = string([]byte{x[0], x[0], x[1], x[1], x[2], x[2]})
	}
	var ch [3]float64
	for i := range ch {
		v, err := strconv.ParseUint(x[2*i:2*i+2], 16, 8)
		if err != nil {
			return 0, false
		}
		c := float64(v) / 255
		// The runtime's threshold (0.03928, WCAG 2.0's) rather than sRGB's 0.04045: no 8-bit
		// channel value falls between the two, so the result is the same.
		if c <= 0.03928 {
			ch[i] = c / 12.92
		} else {
			ch[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*ch[0] + 0.7152*ch[1] + 0.0722*ch[2], true
}

// ContrastRatio is the WCAG contrast ratio of two hex colours, 1 to 21; ok is false when either
// is not a hex colour.
func ContrastRatio(a, b string) (ratio float64, ok bool) {
	la, okA := RelativeLuminance(a)
	lb, okB := RelativeLuminance(b)
	if !okA || !okB {
		return 0, false
	}
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05), true
}

// ButtonTextColor is the text colour the runtime gives a button of colour bg: dark on a light
// colour, white otherwise, and white when bg is not a hex colour.
func ButtonTextColor(bg string) string {
	if l, ok := RelativeLuminance(bg); ok && l > buttonTextLuminance {
		return ButtonTextDark
	}
	return ButtonTextLight
}
