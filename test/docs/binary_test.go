package docs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

// TestMain removes the binary built for the command checks.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// descheduler builds the binary once per test process.
func descheduler(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "docs-descheduler-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "descheduler")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/descheduler")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %w\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// scratchDir makes a directory that sees the repository's deploy/ and
// docs/ and has its own bin/ (holding the binary), so the documented
// relative paths work and outputs stay out of the repository.
func scratchDir(t *testing.T) string {
	t.Helper()
	bin := descheduler(t)
	dir, err := os.MkdirTemp("", "docs-commands-")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"deploy", "docs"} {
		if err := os.Symlink(filepath.Join(abs, d), filepath.Join(dir, d)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "descheduler")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runDescheduler runs the binary with args in dir.
func runDescheduler(t *testing.T, dir string, args []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, descheduler(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("`descheduler %s` did not finish within 3 minutes", strings.Join(args, " "))
	}
	return string(out), err
}
