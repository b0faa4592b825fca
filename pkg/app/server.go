package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// shutdownTimeout bounds the HTTP server's graceful shutdown.
const shutdownTimeout = 5 * time.Second

// ReadinessCheck is one condition of /readyz. Check returns nil when
// ready, else an error saying why not; it must be fast and safe for
// concurrent use.
type ReadinessCheck struct {
	// Name identifies the check in the /readyz body.
	Name string
	// Check reports readiness.
	Check func() error
}

// Server serves /healthz (the process is alive), /readyz (every readiness
// check passes) and /metrics (the gatherer, in the Prometheus formats; not
// served when the gatherer is nil, --disable-metrics).
type Server struct {
	gatherer  prometheus.Gatherer
	profiling bool

	mu     sync.RWMutex
	checks []ReadinessCheck
}

// NewServer returns a server exposing gatherer on /metrics; a nil gatherer
// leaves /metrics out.
func NewServer(gatherer prometheus.Gatherer) *Server {
	return &Server{gatherer: gatherer}
}

// EnableProfiling adds net/http/pprof's endpoints under /debug/pprof/ to
// the handler (--profiling). Call it before Handler or Start.
func (s *Server) EnableProfiling() { s.profiling = true }

// AddReadinessCheck appends a condition to /readyz. It may be called at
// any time, also while serving.
func (s *Server) AddReadinessCheck(c ReadinessCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks = append(s.checks, c)
}

// Handler returns the HTTP handler of the three endpoints (and of the
// profiles with EnableProfiling).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", s.serveReadyz)
	if s.gatherer != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}))
	}
	if s.profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// serveReadyz answers 200 when every check passes, else 503; the body has
// one line per check ("[+]name ok" or "[-]name: reason").
func (s *Server) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	s.mu.RLock()
	checks := append([]ReadinessCheck(nil), s.checks...)
	s.mu.RUnlock()
	var b strings.Builder
	ready := true
	for _, c := range checks {
		if err := c.Check(); err != nil {
			ready = false
			fmt.Fprintf(&b, "[-]%s: %v\n", c.Name, err)
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
		b.WriteString("readyz check failed\n")
	} else {
		b.WriteString("ok\n")
	}
	_, _ = w.Write([]byte(b.String()))
}

// Start listens on addr (so a busy port fails here, at once) and serves
// plain HTTP in the background. The returned stop shuts the server down
// gracefully (bounded by 5s) and waits for it.
func (s *Server) Start(ctx context.Context, addr string) (stop func(), err error) {
	return s.start(ctx, addr, nil, false)
}

// StartTLS is Start over TLS with cfg (which must provide the
// certificate). HTTP/2 is offered only when http2 is set (upstream's
// --enable-http2, off by default).
func (s *Server) StartTLS(ctx context.Context, addr string, cfg *tls.Config, http2 bool) (stop func(), err error) {
	if cfg == nil {
		return nil, errors.New("serving TLS needs a TLS configuration")
	}
	return s.start(ctx, addr, cfg, http2)
}

func (s *Server) start(ctx context.Context, addr string, cfg *tls.Config, http2 bool) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	scheme := "http"
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	if cfg != nil {
		scheme = "https"
		srv.TLSConfig = cfg.Clone()
		if !http2 {
			// A non-nil, empty map keeps net/http from enabling HTTP/2.
			srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
			srv.TLSConfig.NextProtos = []string{"http/1.1"}
		} else {
			srv.TLSConfig.NextProtos = []string{"h2", "http/1.1"}
		}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	logger := klog.FromContext(ctx).WithValues("address", ln.Addr().String(), "scheme", scheme)
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "HTTP server failed")
		}
	}()
	logger.Info("Serving /healthz, /readyz and /metrics", "metrics", s.gatherer != nil)
	return func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			logger.Error(err, "Shutting down the HTTP server")
		}
		<-served
	}, nil
}

// Flag is a readiness condition that some code sets once (e.g. after the
// informer caches synced). The zero value is not ready.
type Flag struct {
	mu     sync.RWMutex
	set    bool
	reason string
}

// NewFlag returns an unset flag whose check reports reason.
func NewFlag(reason string) *Flag { return &Flag{reason: reason} }

// Set marks the condition as met.
func (f *Flag) Set() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.set = true
}

// Check returns nil once Set was called, else an error with the reason.
func (f *Flag) Check() error {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.set {
		return nil
	}
	return errors.New(f.reason)
}
