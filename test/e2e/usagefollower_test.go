package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Helpers of the referee case (referee_test.go): usage that follows the
// pods as the simulator's usage model does.

// bareFiller creates a pod without a controller, bound to the case's node
// suffix (no scheduler), requesting 400m / 100Mi, and waits until it runs.
func (tc *tcase) bareFiller(name, suffix string) {
	tc.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: tc.name, Labels: map[string]string{"app": "filler"}},
		Spec: corev1.PodSpec{NodeName: tc.nodeName(suffix), TerminationGracePeriodSeconds: ptr(int64(0)),
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("400m"), corev1.ResourceMemory: resource.MustParse("100Mi")}}}}},
	}
	if _, err := tc.client.CoreV1().Pods(tc.name).Create(tc.ctx, p, metav1.CreateOptions{}); err != nil {
		tc.t.Fatalf("creating pod %s: %v", name, err)
	}
	tc.eventually("filler "+name+" running", func() (bool, error) {
		got, err := tc.client.CoreV1().Pods(tc.name).Get(tc.ctx, name, metav1.GetOptions{})
		return err == nil && podReady(got), err
	})
}

// usageFollower keeps the pods' usage in kwok's emulated metrics (their
// usage annotations) in step with the pods the way the simulator's usage
// model does: every pod has a steady load, a replacement takes over the
// load of the pod it replaced (the earliest gone one not yet replaced),
// and a node uses its baseline plus its pods' loads (kwok adds them up).
type usageFollower struct {
	tc        *tcase
	mu        sync.Mutex
	loads     map[string]load // by pod name, live pods
	gone      []load          // loads of evicted pods awaiting their replacement
	published map[string]load // the loads written to the pods' annotations
	nodeCPU   map[string]int64
}

// load is a pod's steady usage: cpu millicores and memory MiB.
type load struct{ cpu, memMi int64 }

func newUsageFollower(tc *tcase) *usageFollower {
	return &usageFollower{tc: tc, loads: map[string]load{}, published: map[string]load{}, nodeCPU: map[string]int64{}}
}

func (f *usageFollower) setLoad(pod string, cpu, memMi int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loads[pod] = load{cpu, memMi}
}

// start syncs now and then every 500 ms until the case ends.
func (f *usageFollower) start() {
	f.tc.t.Helper()
	if err := f.sync(); err != nil {
		f.tc.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.tc.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_ = f.sync() // a transient API error: the next tick retries
			}
		}
	}()
	f.tc.t.Cleanup(func() { cancel(); <-done })
}

// sync reads the case's pods, hands gone pods' loads to new pods, and
// writes the usage annotations of the pods whose load changed.
func (f *usageFollower) sync() error {
	list, err := f.tc.client.CoreV1().Pods(f.tc.name).List(f.tc.ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	live := map[string]corev1.Pod{}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodFailed && p.Status.Phase != corev1.PodSucceeded {
			live[p.Name] = p
		}
	}
	var goneNames []string
	for name := range f.loads {
		if _, ok := live[name]; !ok {
			goneNames = append(goneNames, name)
		}
	}
	sort.Strings(goneNames)
	for _, name := range goneNames {
		f.gone = append(f.gone, f.loads[name])
		delete(f.loads, name)
	}
	var fresh []string
	for name := range live {
		if _, ok := f.loads[name]; !ok {
			fresh = append(fresh, name)
		}
	}
	sort.Strings(fresh)
	for _, name := range fresh {
		if len(f.gone) == 0 {
			break
		}
		f.loads[name], f.gone = f.gone[0], f.gone[1:]
	}
	cpu := map[string]int64{}
	for _, n := range f.tc.nodes {
		cpu[n] = baselineCPU
	}
	for name, p := range live {
		l, ok := f.loads[name]
		if !ok || p.Spec.NodeName == "" {
			continue
		}
		if f.published[name] != l {
			if err := f.publish(name, l); err != nil {
				return err
			}
			f.published[name] = l
		}
		cpu[p.Spec.NodeName] += l.cpu
	}
	f.nodeCPU = cpu
	return nil
}

// publish writes a pod's load to its usage annotations.
func (f *usageFollower) publish(pod string, l load) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": usageAnnotations(
		fmt.Sprintf("%dm", l.cpu), fmt.Sprintf("%dMi", l.memMi))}})
	if err != nil {
		return err
	}
	_, err = f.tc.client.CoreV1().Pods(f.tc.name).Patch(f.tc.ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{})
	return err
}

// hot returns the case's nodes (by suffix) whose cpu usage is now over
// target.
func (f *usageFollower) hot() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n, c := range f.nodeCPU {
		if float64(c)*100/refereeNodeCPU > refereeTarget {
			out = append(out, n[len(f.tc.name)+1:])
		}
	}
	sort.Strings(out)
	return out
}

// percents returns every node's cpu usage percent, for the log.
func (f *usageFollower) percents() map[string]float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]float64{}
	for n, c := range f.nodeCPU {
		out[n[len(f.tc.name)+1:]] = float64(c) * 100 / refereeNodeCPU
	}
	return out
}
