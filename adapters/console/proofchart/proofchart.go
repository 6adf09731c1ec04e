// Package proofchart lays out the records page's stacked column chart (decisions per bucket,
// stacked by action) for the template to draw as SVG, which the console's strict CSP allows.
// Its own package keeps the console under its size limit.
package proofchart

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/consentd/consentd/adapters/console/textfmt"
	"github.com/consentd/consentd/core/consent"
)

const (
	chartW     = 720
	stackH     = 220
	stackLeft  = 44
	stackBelow = 28
)

// Stack is a stacked column chart (decisions per bucket and action).
type Stack struct {
	Width, Height int
	Columns       []Column
	Series        []Series
	Ticks         []Tick
	Max           int64
	Interval      string
}

// Column is one bucket's column.
type Column struct {
	Label    string
	X, W     int
	Segments []Segment
	Title    string
}

// Segment is one action's part of a column.
type Segment struct {
	Y, H  int
	Class string
}

// Series is one action's legend entry.
type Series struct {
	Name  string
	Class string
}

// Tick is an axis label.
type Tick struct {
	X, Y   int
	Label  string
	Anchor string
}

// Stacked lays out the decisions per bucket, stacked by action (actionNames: each action in words).
func Stacked(st *consent.ConsentStats, actionNames map[string]string) Stack {
	c := Stack{Width: chartW, Height: stackH + stackBelow, Interval: st.Interval}
	for i, a := range consent.ConsentActions() {
		c.Series = append(c.Series, Series{Name: actionNames[a], Class: fmt.Sprintf("fill-%d", i%4)})
	}
	for _, b := range st.Buckets {
		c.Max = max(c.Max, b.Total)
	}
	n := len(st.Buckets)
	if n == 0 {
		return c
	}
	top := NiceMax(c.Max)
	plotW := chartW - stackLeft - 8
	slot := float64(plotW) / float64(n)
	w := max(int(slot*0.7), 1)
	for i, b := range st.Buckets {
		col := Column{Label: b.Start.Format("2 Jan"), X: stackLeft + int(float64(i)*slot+(slot-float64(w))/2), W: w}
		var parts []string
		y := stackH
		for k, a := range consent.ConsentActions() {
			v := b.Actions[a]
			if v == 0 {
				continue
			}
			hgt := max(int(math.Round(float64(v)/float64(top)*float64(stackH-10))), 1)
			y -= hgt
			col.Segments = append(col.Segments, Segment{Y: y, H: hgt, Class: fmt.Sprintf("fill-%d", k%4)})
			parts = append(parts, fmt.Sprintf("%d %s", v, strings.ToLower(actionNames[a])))
		}
		col.Title = b.Start.Format("2 Jan 2006") + ": " + textfmt.Plural(int(b.Total), "decision", "decisions")
		if len(parts) > 0 {
			col.Title += " (" + strings.Join(parts, ", ") + ")"
		}
		c.Columns = append(c.Columns, col)
	}
	for k, i := range slices.Compact([]int{0, n / 2, n - 1}) {
		anchor := "middle"
		if k == 0 {
			anchor = "start"
		} else if i == n-1 {
			anchor = "end"
		}
		c.Ticks = append(c.Ticks, Tick{X: c.Columns[i].X + w/2, Y: stackH + 18, Label: c.Columns[i].Label, Anchor: anchor})
	}
	c.Max = top
	return c
}

// NiceMax rounds a chart's top up to 1, 2 or 5 times a power of ten.
func NiceMax(v int64) int64 {
	if v <= 1 {
		return 1
	}
	p := int64(1)
	for p*10 < v {
		p *= 10
	}
	for _, m := range []int64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}
