// Package e2e runs the real descheduler binary against a real control plane
// (etcd, kube-apiserver, kube-scheduler, kube-controller-manager) with kwok
// fake nodes; the usage cases read a real metrics-server scraping kwok's
// emulated kubelets. Every case asserts on the API server's state.
//
// Environment:
//
//	E2E_SKIP=1          skip the suite (fast local loops only)
//	E2E_BIN_DIR=DIR     control-plane binaries (default: hack/e2e-binaries.sh's cache)
//	E2E_DESCHEDULER=BIN use a prebuilt descheduler instead of building ./cmd/descheduler
//	E2E_KEEP=1          keep the work directory (certificates, logs) after a passing run
package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// productModule is the module path of the repository's root go.mod.
const productModule = "github.com/usage-descheduler/descheduler"

// suite is the shared environment of every test.
var suite struct {
	cluster     *harness.Cluster
	descheduler string // path of the binary under test
	workDir     string
}

func TestMain(m *testing.M) { os.Exit(runSuite(m)) }

func runSuite(m *testing.M) int {
	if os.Getenv("E2E_SKIP") == "1" {
		fmt.Println("e2e: E2E_SKIP=1, skipping the end-to-end suite")
		return 0
	}
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	log.SetPrefix("e2e: ")
	work, err := os.MkdirTemp("", "usage-descheduler-e2e-")
	if err != nil {
		log.Printf("creating the work directory: %v", err)
		return 1
	}
	suite.workDir = work
	stopSignals := handleSignals()
	defer stopSignals()

	code := setUpAndRun(m)
	if code != 0 || os.Getenv("E2E_KEEP") == "1" {
		log.Printf("work directory kept: %s", work)
	} else {
		_ = os.RemoveAll(work)
	}
	return code
}

func setUpAndRun(m *testing.M) int {
	started := time.Now()
	built := make(chan error, 1)
	go func() { built <- buildDescheduler() }()
	cluster, err := harness.Start(context.Background(), harness.Options{
		BinDir: binDir(), WorkDir: suite.workDir, Logf: log.Printf,
	})
	buildErr := <-built
	if err != nil {
		log.Printf("starting the control plane: %v", err)
		return 1
	}
	suite.cluster = cluster
	defer cluster.Stop()
	if buildErr != nil {
		log.Printf("building the descheduler: %v", buildErr)
		return 1
	}
	log.Printf("suite ready in %s", time.Since(started).Round(time.Millisecond))
	code := m.Run()
	log.Printf("suite finished in %s", time.Since(started).Round(time.Millisecond))
	return code
}

// handleSignals stops every child process and exits on SIGINT/SIGTERM.
func handleSignals() (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			log.Printf("%v: stopping the control plane", sig)
			if suite.cluster != nil {
				suite.cluster.Stop()
			}
			harness.KillAll()
			log.Printf("work directory kept: %s", suite.workDir)
			os.Exit(2)
		case <-done:
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

func binDir() string {
	if d := os.Getenv("E2E_BIN_DIR"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = filepath.Join(os.Getenv("HOME"), ".cache")
	}
	return filepath.Join(cache, "usage-descheduler", "k8s-v1.34.4")
}

// buildDescheduler builds ./cmd/descheduler of the product module into the
// work directory, unless E2E_DESCHEDULER names a binary.
func buildDescheduler() error {
	if bin := os.Getenv("E2E_DESCHEDULER"); bin != "" {
		suite.descheduler = bin
		return nil
	}
	root, err := productRoot()
	if err != nil {
		return err
	}
	out := filepath.Join(suite.workDir, "descheduler")
	started := time.Now()
	if _, err := harness.RunOutput(root, "go", "build", "-o", out, "./cmd/descheduler"); err != nil {
		return err
	}
	log.Printf("built %s in %s", out, time.Since(started).Round(time.Millisecond))
	suite.descheduler = out
	return nil
}

// productRoot walks up from the working directory to the product's go.mod.
func productRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isProductModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of module " + productModule + " above the test directory")
		}
		dir = parent
	}
}

func isProductModule(goMod string) bool {
	f, err := os.Open(goMod)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if line := strings.TrimSpace(s.Text()); strings.HasPrefix(line, "module ") {
			return strings.TrimSpace(strings.TrimPrefix(line, "module ")) == productModule
		}
	}
	return false
}
