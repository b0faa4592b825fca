package metricsserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/usage-descheduler/descheduler/collectors"
)

// countingReader counts the Read calls on a response body: over HTTP/2
// each one may flush a WINDOW_UPDATE frame (a TLS record and a syscall).
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// BenchmarkDecodePodsHTTP2 decodes one PodMetricsList of 30×N pods
// (realisticPods) streamed from an HTTP/2 TLS server in the same process,
// as the collector reads metrics-server's response through the API server;
// reads/op is the number of Read calls on the response body. The time
// includes the server's side of the transfer.
func BenchmarkDecodePodsHTTP2(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		data := realisticPods(30 * n)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(data)
		}))
		srv.EnableHTTP2 = true
		srv.StartTLS()
		client := srv.Client()
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			reads := 0
			for range b.N {
				resp, err := client.Get(srv.URL)
				if err != nil {
					b.Fatal(err)
				}
				if resp.ProtoMajor != 2 {
					b.Fatalf("protocol %s, want HTTP/2", resp.Proto)
				}
				body := &countingReader{r: resp.Body}
				var p collectors.Problems
				out, err := DecodePods(body, &p)
				resp.Body.Close()
				if err != nil || len(out) == 0 {
					b.Fatalf("%d samples, error %v", len(out), err)
				}
				reads += body.reads
			}
			b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
		})
		srv.Close()
	}
}
