package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a child process started in its own process group with its
// output in a log file. It is killed with its group by Stop, and by the
// kernel (Pdeathsig) if the test binary dies without running its cleanup.
type Process struct {
	// Name identifies the process in logs and errors.
	Name string
	// LogPath is the file holding the process's stdout and stderr.
	LogPath string
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	once    sync.Once
}

// spawnRequest asks the spawner thread to start a command.
type spawnRequest struct {
	cmd   *exec.Cmd
	reply chan error
}

var (
	spawnOnce sync.Once
	spawnCh   chan spawnRequest
)

// spawn starts cmd from one OS thread that lives as long as the test binary:
// Pdeathsig fires when the thread that forked the child exits, so forking
// from an arbitrary Go thread could kill children early.
func spawn(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnCh = make(chan spawnRequest)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread stays for the process lifetime
			for req := range spawnCh {
				req.reply <- req.cmd.Start()
			}
		}()
	})
	reply := make(chan error, 1)
	spawnCh <- spawnRequest{cmd: cmd, reply: reply}
	return <-reply
}

// StartProcess runs bin with args, appending its output to logPath.
func StartProcess(name, logPath, bin string, args ...string) (*Process, error) {
	return StartProcessEnv(name, logPath, nil, bin, args...)
}

// StartProcessEnv is StartProcess with extra environment variables
// (KEY=value) on top of the test's own.
func StartProcessEnv(name, logPath string, env []string, bin string, args ...string) (*Process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("opening the log of %s: %w", name, err)
	}
	cmd := exec.Command(bin, args...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := spawn(cmd); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &Process{Name: name, LogPath: logPath, cmd: cmd, done: make(chan struct{})}
	registerProcess(p)
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		unregisterProcess(p)
		close(p.done)
	}()
	return p, nil
}

// PID returns the process id (also its process group id).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode returns the exit code after Done (-1 when killed by a signal).
func (p *Process) ExitCode() int { return p.cmd.ProcessState.ExitCode() }

// Err returns the error of Wait after Done (nil for exit code 0).
func (p *Process) Err() error { return p.waitErr }

// Signal sends sig to the process group.
func (p *Process) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.PID(), sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// Stop sends SIGTERM to the process group, waits up to grace and then kills
// the group. It is safe to call more than once.
func (p *Process) Stop(grace time.Duration) {
	p.once.Do(func() {
		_ = p.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(grace):
		}
		// The group may hold children even after the leader exited.
		_ = p.Signal(syscall.SIGKILL)
		<-p.done
	})
}

// Tail returns the last n lines of the process's log.
func (p *Process) Tail(n int) string { return TailFile(p.LogPath, n) }

// TailFile returns the last n lines of a file (or the error reading it).
func TailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var (
	liveMu sync.Mutex
	live   = map[*Process]struct{}{}
)

func registerProcess(p *Process) {
	liveMu.Lock()
	defer liveMu.Unlock()
	live[p] = struct{}{}
}

func unregisterProcess(p *Process) {
	liveMu.Lock()
	defer liveMu.Unlock()
	delete(live, p)
}

// KillAll kills the process group of every process started by this package
// that is still running. It is the last resort of signal handlers.
func KillAll() {
	liveMu.Lock()
	procs := make([]*Process, 0, len(live))
	for p := range live {
		procs = append(procs, p)
	}
	liveMu.Unlock()
	for _, p := range procs {
		_ = p.Signal(syscall.SIGKILL)
	}
}

// RunOutput runs a short command (e.g. a build) in dir and returns its
// combined output, with the output in the error when it fails.
func RunOutput(dir, bin string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := spawn(cmd); err != nil {
		return "", fmt.Errorf("starting %s: %w", bin, err)
	}
	if err := cmd.Wait(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", bin, strings.Join(args, " "), err, out.String())
	}
	return out.String(), nil
}
