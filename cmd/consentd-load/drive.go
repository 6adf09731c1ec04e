package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tidwall/gjson"

	"github.com/consentd/consentd/core"
)

// target is a running consentd and the site the load writes to.
type target struct {
	BaseURL    string   // http://127.0.0.1:PORT
	Servers    []string // with -processes: every server's base URL; posters are spread over them
	APIKey     string
	SiteID     string
	ProjectKey string
	OrgID      string
	// Sites, with -sites: every site of the run (the first is SiteID's); poster w posts to
	// Sites[w%len(Sites)].
	Sites []site
}

// site is one site of a run: its ID for the management API, its key for the public API.
type site struct{ ID, ProjectKey string }

// load says how hard and how long to drive a target.
type load struct {
	Posters  int           // concurrent consent posters
	Listers  int           // concurrent consent-record listers
	Duration time.Duration // stop after this long
	Max      int           // stop after this many consent posts
	// Config makes the posters GET the site's configuration instead of posting decisions: the
	// same connections and driver without the store, to tell what the servers cost from what
	// the consent records do.
	Config bool
}

// result is what a run observed.
type result struct {
	Elapsed  time.Duration
	Created  []string // ids of records answered 201, in no order
	Got      int      // with load.Config: configurations answered 200
	PostErrs int      // posts answered otherwise or not at all
	FirstErr string
	PostLat  []time.Duration // of the 201s
	Lists    int
	ListErrs int
	ListLat  []time.Duration
}

func newClient(conns int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConns: conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
	}}
}

// drive posts consent decisions and lists records until the duration, the count or ctx ends.
// Requests in flight then are finished, not abandoned, so that every committed record has been
// answered; rctx (when cancelled, as the kill test does by killing the server) cuts them.
func drive(ctx, rctx context.Context, t target, l load) *result {
	ctx, cancel := context.WithTimeout(ctx, l.Duration)
	defer cancel()
	client := newClient(l.Posters + l.Listers)
	var (
		mu    sync.Mutex
		res   = &result{}
		sent  atomic.Int64
		wg    sync.WaitGroup
		start = time.Now()
	)
	cats := []string{"statistics", "marketing", "functional"}
	for w := range l.Posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			pt := t
			if len(t.Servers) > 0 {
				pt.BaseURL = t.Servers[w%len(t.Servers)]
			}
			if len(t.Sites) > 0 {
				pt.ProjectKey = t.Sites[w%len(t.Sites)].ProjectKey
			}
			var (
				ids  []string
				lats []time.Duration
				errs int
				ferr string
				got  int
			)
			for ctx.Err() == nil && rctx.Err() == nil && sent.Add(1) <= int64(l.Max) {
				var body map[string]any
				if !l.Config {
					body = map[string]any{"visitorId": fmt.Sprintf("load-%d-%d", w, rng.Int64()), "consentVersion": 1,
						"categories": map[string]bool{cats[rng.IntN(2)]: rng.IntN(2) == 0},
						// What the runtime sends for proof of consent: a snapshot per language and
						// runtime version, the page without its query.
						"language": []string{"", "de", "fr"}[rng.IntN(3)], "runtimeVersion": "1.4.0",
						"pageUrl": fmt.Sprintf("https://shop.example/p/%d?session=%d", rng.IntN(50), rng.Int64())}
				}
				t0 := time.Now()
				var id string
				var err error
				if l.Config {
					_, err = get(rctx, client, pt.BaseURL+core.PublicPath(pt.ProjectKey, core.PublicConfigPath), "")
				} else {
					id, err = postConsent(rctx, client, pt, body)
				}
				if err != nil {
					errs++
					if ferr == "" {
						ferr = err.Error()
					}
					continue
				}
				lats = append(lats, time.Since(t0))
				if l.Config {
					got++
				} else {
					ids = append(ids, id)
				}
			}
			mu.Lock()
			res.Created = append(res.Created, ids...)
			res.Got += got
			res.PostLat = append(res.PostLat, lats...)
			res.PostErrs += errs
			if res.FirstErr == "" {
				res.FirstErr = ferr
			}
			mu.Unlock()
		}()
	}
	for range l.Listers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lats []time.Duration
			errs := 0
			for ctx.Err() == nil && rctx.Err() == nil {
				t0 := time.Now()
				if _, err := total(rctx, client, t, "limit=50"); err != nil {
					errs++
					continue
				}
				lats = append(lats, time.Since(t0))
			}
			mu.Lock()
			res.ListLat = append(res.ListLat, lats...)
			res.Lists += len(lats)
			res.ListErrs += errs
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res
}

func postConsent(ctx context.Context, c *http.Client, t target, body any) (string, error) {
	b, _ := json.Marshal(body) // plain maps always marshal
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.BaseURL+core.PublicPath(t.ProjectKey, core.PublicConsentPath), bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36")
	res, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("consent post: %d %s", res.StatusCode, raw)
	}
	// gjson reads the one field without decoding the rest: the driver shares the cores with the
	// server it measures, and encoding/json here cost a tenth of the process.
	id := gjson.GetBytes(raw, "id")
	if id.Type != gjson.String || id.Str == "" {
		return "", fmt.Errorf("consent post: 201 without a record id: %s", raw)
	}
	return id.Str, nil
}

// total lists page 1 of the site's records and returns the total.
func total(ctx context.Context, c *http.Client, t target, query string) (int, error) {
	raw, err := listRecords(ctx, c, t, query)
	if err != nil {
		return 0, err
	}
	// The total alone, without decoding the page's records (a CPU profile of a run put the
	// driver's encoding/json at 10% of the process, all of it measurement overhead).
	n := gjson.GetBytes(raw, "total")
	if n.Type != gjson.Number || n.Num != float64(int(n.Num)) {
		return 0, fmt.Errorf("list: no total in %s", raw)
	}
	return int(n.Num), nil
}

// listRecords returns the body of a listing of the site's consent records.
func listRecords(ctx context.Context, c *http.Client, t target, query string) ([]byte, error) {
	return apiGet(ctx, c, t, "/sites/"+t.SiteID+"/consent-records?"+query)
}

// statsTotal sums the decisions of the site's statistics (GET /sites/{id}/consent-stats) by
// day over the two days around now: after a run, they must count every record stored.
func statsTotal(ctx context.Context, c *http.Client, t target) (int, error) {
	now := time.Now().UTC()
	q := "interval=day&from=" + now.Add(-24*time.Hour).Format(time.RFC3339) + "&to=" + now.Add(24*time.Hour).Format(time.RFC3339)
	raw, err := apiGet(ctx, c, t, "/sites/"+t.SiteID+"/consent-stats?"+q)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range gjson.GetBytes(raw, "buckets.#.total").Array() {
		n += int(b.Int())
	}
	return n, nil
}

// apiGet returns the body of a 200 answer of the management API to GET path.
func apiGet(ctx context.Context, c *http.Client, t target, path string) ([]byte, error) {
	return get(ctx, c, t.BaseURL+core.APIPrefix+path, t.APIKey)
}

// get returns the body of a 200 answer to GET url, sent with apiKey when it is not "".
func get(ctx context.Context, c *http.Client, url, apiKey string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %s", url, res.StatusCode, raw)
	}
	return raw, nil
}

// percentile returns the p-th percentile (0..100) of ds, sorting ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// report writes the figures of a run.
func (r *result) report(w io.Writer, store string, l load) {
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(w, "store %s: %d posters, %d listers, %.1f s\n", store, l.Posters, l.Listers, secs)
	what, n := "consent posts: %d answered 201", len(r.Created)
	if l.Config {
		what, n = "config GETs: %d answered 200", r.Got
	}
	fmt.Fprintf(w, "  "+what+" (%.0f/s), %d failed; latency p50 %s p90 %s p99 %s max %s\n",
		n, float64(n)/secs, r.PostErrs,
		ms(percentile(r.PostLat, 50)), ms(percentile(r.PostLat, 90)), ms(percentile(r.PostLat, 99)), ms(percentile(r.PostLat, 100)))
	if r.FirstErr != "" {
		fmt.Fprintf(w, "  first error: %s\n", r.FirstErr)
	}
	fmt.Fprintf(w, "  list calls (page 1, limit 50, with total): %d (%.0f/s), %d failed; latency p50 %s p90 %s p99 %s max %s\n",
		r.Lists, float64(r.Lists)/secs, r.ListErrs,
		ms(percentile(r.ListLat, 50)), ms(percentile(r.ListLat, 90)), ms(percentile(r.ListLat, 99)), ms(percentile(r.ListLat, 100)))
}
