package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// Prometheus scrapes the test exporter and the descheduler's node CPU query
// returns the usage the test set (3 of 4 cores busy). The range is 5s, not
// the default 2m: rate() divides by the whole range, so a 2m range reads
// low until the series is 2 minutes old; usage cases set short ranges in
// their policy's queries (or backfill history with promtool).
func TestHarnessPrometheus(t *testing.T) {
	if _, err := harness.PrometheusBinary(); err != nil {
		t.Skip(err)
	}
	e, err := harness.StartExporter()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.SetNode("hot-node", 4, 3, 8<<30, 6<<30)
	e.SetPod("default", "busy", 0.5, 256<<20)
	prom, err := suite.cluster.StartPrometheus(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	defer prom.Stop(5 * time.Second)
	query := `sum by (instance) (1 - rate(node_cpu_seconds_total{mode="idle"}[5s]))`
	deadline := time.Now().Add(waitTimeout)
	for {
		v, err := promScalar(prom.URL, query)
		if err == nil && math.Abs(v-3) < 0.05 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("query %s = %v (err %v), want 3 cores", query, v, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// promScalar runs an instant query and returns the value of its only series.
func promScalar(base, query string) (float64, error) {
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	if body.Status != "success" || len(body.Data.Result) != 1 {
		return 0, fmt.Errorf("status %s, %d series", body.Status, len(body.Data.Result))
	}
	s, _ := body.Data.Result[0].Value[1].(string)
	return strconv.ParseFloat(s, 64)
}
