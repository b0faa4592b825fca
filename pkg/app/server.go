package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"
)

// DefaultPort is the HTTP port of /healthz, /readyz and /metrics. It is
// upstream's secure port number (10258), so probes, Services and
// ServiceMonitors keep their port; this server speaks plain HTTP there
// (the endpoints carry no secrets; put TLS in front if policy needs it).
const DefaultPort = 10258

// shutdownTimeout bounds the HTTP server's graceful shutdown.
const shutdownTimeout = 5 * time.Second

// ServerOptions are the flags of the HTTP server.
type ServerOptions struct {
	// BindAddress is the IP to listen on.
	BindAddress string
	// Port is the TCP port; 0 disables the server.
	Port int
}

// AddFlags registers the server flags.
func (o *ServerOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.BindAddress, "bind-address", "0.0.0.0", "IP address of the /healthz, /readyz and /metrics server")
	fs.IntVar(&o.Port, "port", DefaultPort,
		"plain-HTTP port of /healthz, /readyz and /metrics (upstream's secure port number); 0 disables the server")
}

// Address returns host:port.
func (o *ServerOptions) Address() string {
	return net.JoinHostPort(o.BindAddress, strconv.Itoa(o.Port))
}

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
// check passes) and /metrics (the gatherer, in the Prometheus formats).
type Server struct {
	gatherer prometheus.Gatherer

	mu     sync.RWMutex
	checks []ReadinessCheck
}

// NewServer returns a server exposing gatherer on /metrics.
func NewServer(gatherer prometheus.Gatherer) *Server {
	return &Server{gatherer: gatherer}
}

// AddReadinessCheck appends a condition to /readyz. It may be called at
// any time, also while serving.
func (s *Server) AddReadinessCheck(c ReadinessCheck) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks = append(s.checks, c)
}

// Handler returns the HTTP handler of the three endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", s.serveReadyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}))
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

// Start listens on addr (so a busy port fails here, at once) and serves in
// the background. The returned stop shuts the server down gracefully
// (bounded by 5s) and waits for it.
func (s *Server) Start(ctx context.Context, addr string) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	logger := klog.FromContext(ctx)
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error(err, "HTTP server failed", "address", addr)
		}
	}()
	logger.Info("Serving /healthz, /readyz and /metrics", "address", ln.Addr().String())
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
