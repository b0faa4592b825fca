package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// The etcd fast path. Creating a pod through the API server costs a
// create and a status update, both dominated by managedFields bookkeeping:
// about 100-200 pods/s on 2 shared cores, so 150,000 pods would take
// 15-25 minutes. With LOAD=etcd (the default) the first pod of every
// ReplicaSet goes through the API (admission defaults, managedFields,
// status update) and its 29 siblings are copies of it written straight to
// etcd, in the API server's own storage encoding (protobuf with the
// "k8s\x00" prefix, under /registry/pods/NS/NAME), which the API server's
// watch cache then picks up like any other write.

// etcdWriter puts keys through etcd's JSON gRPC gateway (no client library).
type etcdWriter struct {
	url  string // http://127.0.0.1:PORT
	http *http.Client
}

type kvPut struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type txnOp struct {
	RequestPut kvPut `json:"requestPut"`
}

// put writes the key/value pairs in one transaction.
func (e *etcdWriter) put(ctx context.Context, keys []string, values [][]byte) error {
	ops := make([]txnOp, len(keys))
	for i := range keys {
		ops[i] = txnOp{kvPut{base64.StdEncoding.EncodeToString([]byte(keys[i])), base64.StdEncoding.EncodeToString(values[i])}}
	}
	body, err := json.Marshal(map[string]any{"success": ops})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"/v3/kv/txn", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := e.http.Do(req)
	if err != nil {
		return fmt.Errorf("etcd txn: %w", err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("etcd txn: %s: %s", resp.Status, data)
	}
	return nil
}

// storageEncoder encodes objects as the API server stores them.
var storageEncoder = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

// encodePod returns the storage bytes of p (TypeMeta set, no
// resourceVersion: the API server derives it from etcd's revision).
func encodePod(p *corev1.Pod) ([]byte, error) {
	p.APIVersion, p.Kind = "v1", "Pod"
	p.ResourceVersion = ""
	var b bytes.Buffer
	if err := storageEncoder.Encode(p, &b); err != nil {
		return nil, fmt.Errorf("encoding pod %s/%s: %w", p.Namespace, p.Name, err)
	}
	return b.Bytes(), nil
}

func podKey(p *corev1.Pod) string { return "/registry/pods/" + p.Namespace + "/" + p.Name }

// podUID is a deterministic, unique uid for pod i.
func podUID(i int) types.UID {
	return types.UID(fmt.Sprintf("0b5e8a52-0000-4000-8000-%012x", i))
}

// sibling returns pod i as a copy of template (the API-created pod of the
// same ReplicaSet, slot of the same node layout) with its own name, uid,
// node, IPs and container ids, and its own requests with perPodRequests.
func sibling(template *corev1.Pod, i int, l layout) *corev1.Pod {
	node, slot, rs := l.place(i)
	p := template.DeepCopy()
	p.Name, p.UID = podName(rs, i), podUID(i)
	p.Spec.NodeName = nodeName(node)
	if l.perPodRequests {
		cpu, mem := l.requests(i)
		c := &p.Spec.Containers[0]
		c.Resources.Requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(cpu, resource.DecimalSI)
		c.Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(mem<<20, resource.BinarySI)
		c.Resources.Limits[corev1.ResourceCPU] = *resource.NewMilliQuantity(2*cpu, resource.DecimalSI)
		c.Resources.Limits[corev1.ResourceMemory] = *resource.NewQuantity(mem<<20, resource.BinarySI)
	}
	ip := podIP(node, slot)
	p.Status.PodIP, p.Status.PodIPs = ip, []corev1.PodIP{{IP: ip}}
	p.Status.HostIP, p.Status.HostIPs = nodeIP(node), []corev1.HostIP{{IP: nodeIP(node)}}
	for k := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[k].ContainerID = fmt.Sprintf("containerd://%064x", i*4+k)
	}
	return p
}

// writeSiblings writes every pod that is not the first of its ReplicaSet
// into etcd, in transactions of batch pods on workers goroutines.
func (l *loader) writeSiblings(ctx context.Context, e *etcdWriter, templates []*corev1.Pod, batch int) error {
	var siblings []int // indexes of the pods to write
	for i := range l.layout.pods() {
		if i%podsPerRS != 0 {
			siblings = append(siblings, i)
		}
	}
	batches := (len(siblings) + batch - 1) / batch
	return parallel(ctx, batches, 4, func(ctx context.Context, b int) error {
		idx := siblings[b*batch : min((b+1)*batch, len(siblings))]
		keys, values := make([]string, 0, len(idx)), make([][]byte, 0, len(idx))
		for _, i := range idx {
			node, _, rs := l.layout.place(i)
			p := sibling(templates[rs], i, l.layout)
			data, err := encodePod(p)
			if err != nil {
				return err
			}
			keys, values = append(keys, podKey(p)), append(values, data)
			c, m := podUsage(i, node)
			l.metrics.SetPodUsage(p.Namespace, p.Name, milli(c), mebi(m))
		}
		return retry(ctx, func() error { return e.put(ctx, keys, values) })
	})
}

// waitPods waits until a consistent list counts want pods. Such a list
// is served from the watch cache once the cache has caught up with etcd's
// current revision (ConsistentListFromCache), so the cache holds them too.
func (l *loader) waitPods(ctx context.Context, want int) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		list, err := l.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil {
			got := len(list.Items)
			if list.RemainingItemCount != nil {
				got += int(*list.RemainingItemCount)
			}
			if got >= want {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the API server lists fewer than %d pods after 5 minutes (last error: %v)", want, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
