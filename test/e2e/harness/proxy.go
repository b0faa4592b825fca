package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// ProxyRequest is one request that went through a Proxy.
type ProxyRequest struct {
	// Method and Path of the request.
	Method, Path string
	// Received is when the proxy read the request.
	Received time.Time
	// Answered is when the answer (or its headers, for a watch) was sent.
	Answered time.Time
	// Status is the answer's HTTP status.
	Status int
	// Stalled is set when the request was held by Stall and never
	// forwarded.
	Stalled bool
}

// Proxy stands between one client (a descheduler under test) and the API
// server: it serves plain HTTP on 127.0.0.1 and forwards each request with
// the admin credentials, keeps a log of the requests, and can make the
// requests under chosen path prefixes hang (a partition of that client
// from part of the API), for fault-injection cases.
type Proxy struct {
	// URL is where clients connect (http://127.0.0.1:PORT).
	URL string

	srv     *http.Server
	forward *httputil.ReverseProxy

	mu      sync.Mutex
	stalled []string
	resume  chan struct{}
	log     []ProxyRequest
}

// StartProxy starts a proxy to the API server of cfg (an admin config).
func StartProxy(cfg *rest.Config) (*Proxy, error) {
	target, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, fmt.Errorf("API server URL %q: %w", cfg.Host, err)
	}
	transport, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("proxy transport: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy listener: %w", err)
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), resume: make(chan struct{})}
	p.forward = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = target.Host
		},
		Transport:     transport,
		FlushInterval: -1, // watches stream
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// statusWriter remembers the status and when it was written.
type statusWriter struct {
	http.ResponseWriter
	status int
	at     time.Time
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status, w.at = code, time.Now()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status, w.at = http.StatusOK, time.Now()
	}
	return w.ResponseWriter.Write(b)
}

// Flush lets watch events through at once.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	req := ProxyRequest{Method: r.Method, Path: r.URL.Path, Received: time.Now()}
	if resume, stall := p.stalls(r.URL.Path); stall {
		// Hang until the client gives up or the stall ends; never forward.
		select {
		case <-r.Context().Done():
		case <-resume:
		}
		req.Stalled, req.Status, req.Answered = true, http.StatusServiceUnavailable, time.Now()
		p.record(req)
		http.Error(w, "stalled by the e2e proxy", http.StatusServiceUnavailable)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	p.forward.ServeHTTP(sw, r)
	req.Status, req.Answered = sw.status, sw.at
	p.record(req)
}

func (p *Proxy) stalls(path string) (<-chan struct{}, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, prefix := range p.stalled {
		if strings.HasPrefix(path, prefix) {
			return p.resume, true
		}
	}
	return nil, false
}

func (p *Proxy) record(r ProxyRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log = append(p.log, r)
}

// Stall makes every request whose path starts with prefix hang, from now
// until Resume or until its client gives up; such requests are answered
// 503 and never reach the API server.
func (p *Proxy) Stall(prefix string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = append(p.stalled, prefix)
}

// Resume ends every stall; the requests held so far are answered 503.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stalled = nil
	close(p.resume)
	p.resume = make(chan struct{})
}

// Requests returns the requests answered so far, in the order they ended.
func (p *Proxy) Requests() []ProxyRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ProxyRequest(nil), p.log...)
}

// WriteKubeconfig writes a kubeconfig that points at the proxy (no
// credentials: the proxy adds them).
func (p *Proxy) WriteKubeconfig(path string) error {
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: proxy
  cluster:
    server: %s
users:
- name: proxy
  user: {}
contexts:
- name: proxy
  context: {cluster: proxy, user: proxy}
current-context: proxy
`, p.URL)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		return fmt.Errorf("writing the proxy kubeconfig: %w", err)
	}
	return nil
}

// Close stops the proxy, ending the stalls and open connections.
func (p *Proxy) Close() {
	p.Resume()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := p.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		_ = p.srv.Close()
	}
	_ = p.srv.Close()
}
