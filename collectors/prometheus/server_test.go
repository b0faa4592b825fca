package prometheus

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/usage-descheduler/descheduler/collectors"
)

var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// value is one series of a result at one evaluation time.
type value struct {
	labels map[string]string
	v      string
}

// request is what the fake server saw.
type request struct {
	path, query, auth string
	at, start, end    time.Time
	step              time.Duration
}

// fakeProm speaks the Prometheus HTTP API: /api/v1/query returns a vector
// and /api/v1/query_range a matrix, both computed by eval at each
// evaluation time. raw answers a query with a fixed status and body.
type fakeProm struct {
	mu       sync.Mutex
	eval     func(query string, at time.Time) []value
	raw      map[string][2]string // query → {status code, body}
	down     bool                 // answer 503 to everything
	requests []request
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := request{path: r.URL.Path, query: r.Form.Get("query"), auth: r.Header.Get("Authorization"),
		at: parseTime(r.Form.Get("time")), start: parseTime(r.Form.Get("start")), end: parseTime(r.Form.Get("end"))}
	if s, err := strconv.ParseFloat(r.Form.Get("step"), 64); err == nil {
		req.step = time.Duration(s * float64(time.Second))
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	raw, isRaw := f.raw[req.query]
	down, eval := f.down, f.eval
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case down:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"status":"error","errorType":"unavailable","error":"TSDB not ready"}`)
	case isRaw:
		code, _ := strconv.Atoi(raw[0])
		w.WriteHeader(code)
		fmt.Fprint(w, raw[1])
	case req.path == "/api/v1/query":
		writeJSON(w, "vector", vector(eval, req.query, req.at))
	case req.path == "/api/v1/query_range":
		writeJSON(w, "matrix", matrix(eval, req))
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeProm) take() []request {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.requests
	f.requests = nil
	return out
}

func (f *fakeProm) set(fn func(*fakeProm)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func parseTime(s string) time.Time {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return time.Time{}
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
}

func promTime(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func vector(eval func(string, time.Time) []value, q string, at time.Time) []map[string]any {
	var out []map[string]any
	for _, v := range eval(q, at) {
		out = append(out, map[string]any{"metric": v.labels, "value": []any{promTime(at), v.v}})
	}
	return out
}

func matrix(eval func(string, time.Time) []value, req request) []map[string]any {
	type stream struct {
		labels map[string]string
		values [][]any
	}
	var order []string
	streams := map[string]*stream{}
	for at := req.start; !at.After(req.end); at = at.Add(req.step) {
		for _, v := range eval(req.query, at) {
			key := fmt.Sprint(v.labels)
			if streams[key] == nil {
				streams[key] = &stream{labels: v.labels}
				order = append(order, key)
			}
			streams[key].values = append(streams[key].values, []any{promTime(at), v.v})
		}
	}
	var out []map[string]any
	for _, k := range order {
		out = append(out, map[string]any{"metric": streams[k].labels, "values": streams[k].values})
	}
	return out
}

func writeJSON(w http.ResponseWriter, resultType string, result []map[string]any) {
	if result == nil {
		result = []map[string]any{}
	}
	body, _ := json.Marshal(map[string]any{"status": "success",
		"data": map[string]any{"resultType": resultType, "result": result}})
	_, _ = w.Write(body)
}

// cluster answers the default queries: n1 uses 1.5 cores and 4 GiB, n2 0.25
// cores and 1 GiB (instance labels carry node-exporter's port), pod
// shop/web-1 0.1 cores and 100 MiB.
func cluster(q string, _ time.Time) []value {
	switch q {
	case collectors.DefaultNodeCPUQuery:
		return []value{{map[string]string{"instance": "n1:9100"}, "1.5"}, {map[string]string{"instance": "n2:9100"}, "0.25"}}
	case collectors.DefaultNodeMemoryQuery:
		return []value{{map[string]string{"instance": "n1:9100", "job": "node-exporter"}, "4294967296"},
			{map[string]string{"instance": "n2:9100", "job": "node-exporter"}, "1073741824"}}
	case collectors.DefaultPodCPUQuery:
		return []value{{map[string]string{"namespace": "shop", "pod": "web-1"}, "0.1"}}
	case collectors.DefaultPodMemoryQuery:
		return []value{{map[string]string{"namespace": "shop", "pod": "web-1"}, "104857600"}}
	}
	return nil
}

// defaultQueries returns the defaulted policy queries.
func defaultQueries() collectors.PrometheusQueries {
	var q collectors.PrometheusQueries
	q.Default()
	return q
}
