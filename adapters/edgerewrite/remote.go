package edgerewrite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"

	"github.com/consentd/consentd/core"
	"github.com/consentd/consentd/core/edge"
)

// DefaultRevalidate is how long Remote applies a rule set before asking consentd whether it
// changed (the endpoint's max-age is a minute; a change in the console shows within this).
const DefaultRevalidate = 10 * time.Second

// maxRuleSet bounds a rule set's body.
const maxRuleSet = 8 << 20

var ruleSetFetches = promauto.NewCounterVec(prometheus.CounterOpts{
	Name: "consentd_edge_rule_set_fetches_total", Help: "Fetches of the edge rule set from consentd, by result (changed, unchanged, failed).",
}, []string{"result"})

func init() {
	for _, r := range []string{"changed", "unchanged", "failed"} {
		ruleSetFetches.WithLabelValues(r)
	}
}

// Remote is a site's rule set fetched from a consentd server (GET
// /api/v1/public/{projectKey}/edge) and revalidated with its ETag every Revalidate, in the
// background while pages go on being rewritten with the one in hand. Only the first page
// waits for it; while consentd cannot be reached the last one applies.
type Remote struct {
	// API is consentd's base URL (https://consentd.example, with or without /api/v1);
	// ProjectKey the site's project key.
	API, ProjectKey string
	// Client fetches (default: a client with a 10 s timeout); Revalidate defaults to
	// DefaultRevalidate.
	Client     *http.Client
	Revalidate time.Duration
	Log        *slog.Logger

	mu      sync.Mutex
	m       *edge.Matcher
	etag    string
	checked time.Time
	busy    bool
	// first is closed once the first fetch is over.
	first     chan struct{}
	firstOnce sync.Once
	firstErr  error
}

// URL is the rule set's URL.
func (r *Remote) URL() string {
	base := strings.TrimSuffix(strings.TrimSuffix(r.API, "/"), core.APIPrefix)
	return base + core.PublicPath(r.ProjectKey, core.PublicEdge)
}

// Matcher returns the rule set in hand, fetching it first when there is none, and starting a
// revalidation when it is older than Revalidate.
func (r *Remote) Matcher(ctx context.Context) (*edge.Matcher, error) {
	r.mu.Lock()
	if r.first == nil {
		r.first = make(chan struct{})
	}
	m, stale := r.m, time.Since(r.checked) >= r.every()
	start := stale && !r.busy
	if start {
		r.busy = true
	}
	r.mu.Unlock()
	if start {
		go r.refresh()
	}
	if m != nil {
		return m, nil
	}
	select {
	case <-r.first:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		return nil, fmt.Errorf("edge rule set %s: %w", r.URL(), r.firstErr)
	}
	return r.m, nil
}

func (r *Remote) every() time.Duration {
	if r.Revalidate > 0 {
		return r.Revalidate
	}
	return DefaultRevalidate
}

// refresh fetches the rule set (If-None-Match the one in hand) and keeps it.
func (r *Remote) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r.mu.Lock()
	etag := r.etag
	r.mu.Unlock()
	m, newTag, err := r.fetch(ctx, etag)
	r.mu.Lock()
	r.busy = false
	r.checked = time.Now()
	switch {
	case err != nil:
		ruleSetFetches.WithLabelValues("failed").Inc()
		if r.Log != nil {
			r.Log.Warn("edge: fetching the rule set failed; the one in hand applies", slog.String("url", r.URL()), slog.Any("err", err))
		}
		r.firstErr = err
	case m == nil:
		ruleSetFetches.WithLabelValues("unchanged").Inc()
	default:
		ruleSetFetches.WithLabelValues("changed").Inc()
		r.m, r.etag = m, newTag
	}
	r.mu.Unlock()
	r.firstOnce.Do(func() { close(r.first) })
}

// fetch GETs the rule set; m is nil when it did not change.
func (r *Remote) fetch(ctx context.Context, etag string) (m *edge.Matcher, newTag string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL(), nil)
	if err != nil {
		return nil, "", err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotModified && etag != "":
		return nil, etag, nil
	case res.StatusCode != http.StatusOK:
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return nil, "", fmt.Errorf("HTTP %d: %s", res.StatusCode, strings.TrimSpace(string(b)))
	}
	var rs edge.RuleSet
	if err := json.NewDecoder(io.LimitReader(res.Body, maxRuleSet)).Decode(&rs); err != nil {
		return nil, "", fmt.Errorf("decoding: %w", err)
	}
	if err := Check(&rs); err != nil {
		return nil, "", err
	}
	return rs.Compile(), res.Header.Get("ETag"), nil
}

// Check refuses a rule set this edge cannot apply: of a newer format, or inconsistent.
func Check(rs *edge.RuleSet) error {
	if rs.Format != edge.Format {
		return fmt.Errorf("rule set format %d: this edge applies format %d (upgrade consentd proxy or the middleware)", rs.Format, edge.Format)
	}
	if len(rs.Policies) == 0 || rs.Unknown < 0 || rs.Unknown >= len(rs.Policies) {
		return errors.New("rule set without its policies")
	}
	for place, i := range rs.Places {
		if i < 0 || i >= len(rs.Policies) {
			return fmt.Errorf("rule set: place %s names no policy", place)
		}
	}
	return nil
}

// Static is a rule set given once (a Go site that reads it from consentd's own use cases, a
// test).
type Static struct{ M *edge.Matcher }

// Matcher returns the rule set.
func (s Static) Matcher(context.Context) (*edge.Matcher, error) {
	if s.M == nil {
		return nil, errors.New("no rule set")
	}
	return s.M, nil
}
