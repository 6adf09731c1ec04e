package proofchart

import "testing"

func TestNiceMax(t *testing.T) {
	for v, want := range map[int64]int64{0: 1, 1: 1, 2: 2, 3: 5, 7: 10, 11: 20, 450: 500, 1000: 1000} {
		if got := NiceMax(v); got != want {
			t.Errorf("NiceMax(%d) = %d, want %d", v, got, want)
		}
	}
}
