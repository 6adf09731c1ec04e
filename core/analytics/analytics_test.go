package analytics

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestDeviceClass(t *testing.T) {
	for ua, want := range map[string]string{
		"": DeviceBot,
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)": DeviceBot,
		"curl/8.5.0": DeviceBot,
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148":     DeviceMobile,
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36": DeviceMobile,
		"Mozilla/5.0 (Linux; Android 14; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36":        DeviceTablet,
		"Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148":              DeviceTablet,
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36":     DeviceDesktop,
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0":                                  DeviceDesktop,
	} {
		if got := DeviceClass(ua); got != want {
			t.Errorf("DeviceClass(%q) = %s, want %s", ua, got, want)
		}
	}
}

type flakyStore struct {
	fail bool
	got  []Row
}

func (f *flakyStore) AddAnalytics(_ context.Context, rows []Row) error {
	if f.fail {
		return errors.New("down")
	}
	f.got = append(f.got, rows...)
	return nil
}

func (f *flakyStore) AnalyticsRows(context.Context, string, time.Time, time.Time) ([]Row, error) {
	return nil, nil
}

// TestAggregatorKeepsCountsOfAFailedFlush: counts survive a failed flush and go with the
// next, added to what was counted meanwhile; a key is written once per flush.
func TestAggregatorKeepsCountsOfAFailedFlush(t *testing.T) {
	s := &flakyStore{fail: true}
	a := &Aggregator{Store: s}
	k := Key{SiteID: "s", Hour: time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC), Device: DeviceMobile}
	a.Add(k, &Counts{Shown: 2, Categories: map[string]Tally{"statistics": {Decisions: 1, Granted: 1}}})
	if err := a.Flush(context.Background()); err == nil {
		t.Fatal("flush on a failing store: no error")
	}
	a.Add(k, &Counts{Shown: 1, Decided: 1})
	s.fail = false
	if err := a.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(s.got) != 1 || s.got[0].Shown != 3 || s.got[0].Decided != 1 || s.got[0].Categories["statistics"].Granted != 1 {
		t.Fatalf("flushed %+v", s.got)
	}
	if p := a.Pending("s", k.Hour, k.Hour.Add(time.Hour)); len(p) != 0 {
		t.Fatalf("pending after a flush: %+v", p)
	}
}

// TestCountEvent: each event adds to its counter; a decision's time adds to the mean.
func TestCountEvent(t *testing.T) {
	var c Counts
	ms := int64(1500)
	for _, e := range []Event{{Type: EventShown}, {Type: EventPreferencesOpened}, {Type: EventLeft},
		{Type: EventDecision, Decision: DecisionRejectAll, MS: &ms}, {Type: EventDecision, Decision: DecisionGPC}} {
		if err := countEvent(&c, e); err != nil {
			t.Fatal(err.msg)
		}
	}
	if c.Shown != 1 || c.PreferencesOpened != 1 || c.Left != 1 || c.FirstRejectAll != 1 || c.FirstGPC != 1 || c.DecisionMS != 1500 || c.Timed != 1 {
		t.Fatalf("%+v", c)
	}
	for _, e := range []Event{{Type: "click"}, {Type: EventDecision}, {Type: EventShown, Decision: DecisionAcceptAll}, {Type: EventShown, MS: &ms}} {
		if err := countEvent(&c, e); err == nil {
			t.Errorf("%+v accepted", e)
		}
	}
}

// slowStore holds each write until release is closed, so that a test can read while a flush
// is in flight.
type slowStore struct {
	started, release chan struct{}
	mu               sync.Mutex
	got              []Row
}

func (s *slowStore) AddAnalytics(_ context.Context, rows []Row) error {
	close(s.started)
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, rows...)
	return nil
}

func (s *slowStore) AnalyticsRows(context.Context, string, time.Time, time.Time) ([]Row, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Row(nil), s.got...), nil
}

// TestAggregatorRowsDuringAFlush: a read while a flush is in flight (its counts taken from
// memory, not yet stored) still sees every count, once. This is what made the experiment's
// results and the analytics report disagree by a visitor now and then.
func TestAggregatorRowsDuringAFlush(t *testing.T) {
	s := &slowStore{started: make(chan struct{}), release: make(chan struct{})}
	a := &Aggregator{Store: s}
	hour := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	a.Add(Key{SiteID: "s", Hour: hour}, &Counts{Shown: 3})
	done := make(chan error)
	go func() { done <- a.Flush(context.Background()) }()
	<-s.started
	read := make(chan []Row)
	go func() {
		rows, err := a.Rows(context.Background(), "s", hour, hour.Add(time.Hour))
		if err != nil {
			t.Error(err)
		}
		read <- rows
	}()
	select {
	case rows := <-read:
		t.Fatalf("a read during a flush returned %+v before the flush was stored", rows)
	case <-time.After(50 * time.Millisecond):
	}
	close(s.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rows := <-read
	if len(rows) != 1 || rows[0].Shown != 3 {
		t.Fatalf("read during a flush: %+v, want one row of 3 shown", rows)
	}
}
