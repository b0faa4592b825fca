package main

import (
	"context"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/usage-descheduler/descheduler/test/e2e/harness"
)

// loader creates the cluster through the API with a bounded worker pool.
type loader struct {
	client  kubernetes.Interface
	workers int
	layout  layout
	metrics *harness.MetricsAPI
	// etcd, when set, receives all pods but the first of every ReplicaSet
	// (see etcdload.go); nil creates every pod through the API.
	etcd *etcdWriter
	// apiPods and apiPodsTime are the pods created through the API and
	// how long they took.
	apiPods     int
	apiPodsTime time.Duration
}

// loaderClient is a protobuf client without client-side rate limiting (the
// pool bounds the concurrency), for the admin user, whom API Priority and
// Fairness exempts.
func loaderClient(cfg *rest.Config) (kubernetes.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = 20000, 40000
	c.ContentType = "application/vnd.kubernetes.protobuf"
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	c.Timeout = time.Minute
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("building the loader client: %w", err)
	}
	return client, nil
}

// parallel runs fn(0..n-1) on workers goroutines; the first error stops
// the rest and is returned. Transient API errors are retried by retry.
func parallel(ctx context.Context, n, workers int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		once     sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := fn(ctx, i); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// retry calls fn until it succeeds, up to 6 attempts for errors a loaded
// API server returns transiently (timeouts, 429, 5xx).
func retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := range 6 {
		if err = fn(); err == nil {
			return nil
		}
		if !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(100<<attempt) * time.Millisecond):
		}
	}
	return err
}

func transient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)
}

// load creates the namespaces with their default ServiceAccounts (no
// controller manager runs), the nodes, the ReplicaSets and the pods, each
// with its final status, and sets every node's and pod's usage in the
// metrics API.
func (l *loader) load(ctx context.Context) error {
	now := metav1.NewTime(time.Now().Truncate(time.Second))
	started := time.Now()
	if err := parallel(ctx, namespaces, l.workers, l.namespace); err != nil {
		return err
	}
	if err := parallel(ctx, l.layout.nodes, l.workers, func(ctx context.Context, i int) error { return l.node(ctx, i, now) }); err != nil {
		return err
	}
	log.Printf("%d namespaces and %d nodes created in %s", namespaces, l.layout.nodes, since(started))
	uids := make([]types.UID, l.layout.replicaSets())
	if err := parallel(ctx, len(uids), l.workers, func(ctx context.Context, rs int) error {
		var got *appsv1.ReplicaSet
		if err := retry(ctx, func() (err error) {
			got, err = l.client.AppsV1().ReplicaSets(rsNamespace(rs)).Create(ctx, newReplicaSet(rs), metav1.CreateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("creating ReplicaSet %d: %w", rs, err)
		}
		uids[rs] = got.UID
		// Its status as the ReplicaSet controller would report it: every
		// replica ready and available (the workload budget reads it).
		replicaSetStatus(got)
		if err := retry(ctx, func() error {
			_, err := l.client.AppsV1().ReplicaSets(got.Namespace).UpdateStatus(ctx, got, metav1.UpdateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("writing the status of ReplicaSet %s: %w", got.Name, err)
		}
		return nil
	}); err != nil {
		return err
	}
	log.Printf("%d ReplicaSets created in %s", len(uids), since(started))
	return l.loadPods(ctx, uids, now)
}

// loadPods creates the pods: all through the API, or with the etcd fast
// path the first of every ReplicaSet through the API and the rest as its
// copies in etcd.
func (l *loader) loadPods(ctx context.Context, uids []types.UID, now metav1.Time) error {
	viaAPI, step := l.layout.pods(), 1
	if l.etcd != nil {
		viaAPI, step = len(uids), podsPerRS
	}
	templates := make([]*corev1.Pod, len(uids))
	var done atomic.Int64
	stopProgress := progress(&done, viaAPI, "pods through the API")
	started := time.Now()
	err := parallel(ctx, viaAPI, l.workers, func(ctx context.Context, k int) error {
		i := k * step
		p, err := l.pod(ctx, i, uids[i/podsPerRS], now)
		if err == nil && i%podsPerRS == 0 {
			templates[i/podsPerRS] = p
		}
		done.Add(1)
		return err
	})
	stopProgress()
	l.apiPods, l.apiPodsTime = viaAPI, time.Since(started)
	log.Printf("%d pods created through the API in %s (%.0f pods/s)", viaAPI, since(started), float64(viaAPI)/time.Since(started).Seconds())
	if err != nil || l.etcd == nil {
		return err
	}
	started = time.Now()
	if err := l.writeSiblings(ctx, l.etcd, templates, 200); err != nil {
		return err
	}
	log.Printf("%d pods written to etcd in %s", l.layout.pods()-viaAPI, since(started))
	if err := l.waitPods(ctx, l.layout.pods()); err != nil {
		return err
	}
	log.Printf("the API server lists all %d pods after %s", l.layout.pods(), since(started))
	return nil
}

// progress logs every 10 s how many of total are done until stopped.
func progress(done *atomic.Int64, total int, what string) (stop func()) {
	ch := make(chan struct{})
	started := time.Now()
	go func() {
		for {
			select {
			case <-ch:
				return
			case <-time.After(10 * time.Second):
				d := done.Load()
				log.Printf("%d/%d %s (%.0f/s)", d, total, what, float64(d)/time.Since(started).Seconds())
			}
		}
	}()
	return func() { close(ch) }
}

func (l *loader) namespace(ctx context.Context, i int) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespaceName(i)}}
	if err := retry(ctx, func() error {
		_, err := l.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating namespace %s: %w", ns.Name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns.Name}}
	if err := retry(ctx, func() error {
		_, err := l.client.CoreV1().ServiceAccounts(ns.Name).Create(ctx, sa, metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating the default ServiceAccount of %s: %w", ns.Name, err)
	}
	return nil
}

func (l *loader) node(ctx context.Context, i int, now metav1.Time) error {
	n := newNode(i)
	var created *corev1.Node
	if err := retry(ctx, func() (err error) {
		created, err = l.client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating node %s: %w", n.Name, err)
	}
	// The TaintNodesByCondition admission plugin taints every new node
	// node.kubernetes.io/not-ready:NoSchedule; the node lifecycle
	// controller (not running here) would lift it once the node is Ready.
	if len(created.Spec.Taints) > 0 {
		created.Spec.Taints = nil
		if err := retry(ctx, func() (err error) {
			created, err = l.client.CoreV1().Nodes().Update(ctx, created, metav1.UpdateOptions{})
			return err
		}); err != nil {
			return fmt.Errorf("lifting the taints of node %s: %w", n.Name, err)
		}
	}
	nodeStatus(created, i, now)
	if err := retry(ctx, func() error {
		_, err := l.client.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("writing the status of node %s: %w", n.Name, err)
	}
	l.setNodeUsage(i)
	return nil
}

// setNodeUsage sets node i's usage: its pods' usage plus 1 core and 2 GiB
// for the system (the sum over the node's pods, see podUsage).
func (l *loader) setNodeUsage(i int) {
	var cpu, mem int64 = 1000, 2048
	for slot := range l.layout.podsPerNode {
		c, m := podUsage(l.layout.podIndex(i, slot), i)
		cpu, mem = cpu+c, mem+m
	}
	l.metrics.SetNodeUsage(nodeName(i), milli(cpu), mebi(mem))
}

// podUsage is pod i's usage on node: its usage basis (podCPUMilli,
// podMemoryMi; its requests with REQUESTS=pod) times the node's usage
// factor (memory at most 1.2x).
func podUsage(i, node int) (cpuMilli, memMi int64) {
	f := usageFactor(node)
	return int64(float64(podCPUMilli(i)) * f), int64(float64(podMemoryMi(i)) * min(f, 1.2))
}

// pod creates pod i through the API, writes its status and returns it.
func (l *loader) pod(ctx context.Context, i int, rsUID types.UID, now metav1.Time) (*corev1.Pod, error) {
	nodeIndex, slot, rs := l.layout.place(i)
	cpu, mem := l.layout.requests(i)
	p := newPod(i, rs, rsUID, nodeName(nodeIndex), cpu, mem)
	var created *corev1.Pod
	if err := retry(ctx, func() (err error) {
		created, err = l.client.CoreV1().Pods(p.Namespace).Create(ctx, p, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			created, err = l.client.CoreV1().Pods(p.Namespace).Get(ctx, p.Name, metav1.GetOptions{})
		}
		return err
	}); err != nil {
		return nil, fmt.Errorf("creating pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	podStatus(created, nodeIndex, slot, now)
	var final *corev1.Pod
	if err := retry(ctx, func() (err error) {
		final, err = l.client.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{})
		return err
	}); err != nil {
		return nil, fmt.Errorf("writing the status of pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	c, m := podUsage(i, nodeIndex)
	l.metrics.SetPodUsage(p.Namespace, p.Name, milli(c), mebi(m))
	return final, nil
}
