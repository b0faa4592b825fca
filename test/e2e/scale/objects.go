package main

import (
	"fmt"
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Shape of the generated cluster. Every node is 16 cores, 64 GiB, 110 pods;
// a pod requests 100m-400m cpu (250m on average) and 512Mi-1.5Gi memory
// (1Gi on average), so 30 pods request about 7.5 cores (47%) and 30 GiB
// (47%) of a node, like `descheduler generate`.
const (
	nodeCPU    = "16"
	nodeMemory = "64Gi"
	nodePods   = "110"
	podsPerRS  = 30 // pods per ReplicaSet: 150,000 pods -> 5,000 ReplicaSets
	namespaces = 50
	zones      = 3
	benchLabel = "bench.usage-descheduler.io/generated"
)

// layout places the pods: pod i of the cluster runs on node i%nodes in
// slot i/nodes and belongs to ReplicaSet i/podsPerRS (namespace
// (i/podsPerRS)%50), so the 30 pods of a ReplicaSet run on 30 nodes.
type layout struct {
	nodes, podsPerNode int
	// perPodRequests gives every pod its own requests (REQUESTS=pod)
	// instead of its ReplicaSet template's: the worst case for the
	// descheduler's informer cache, which shares the containers of pods
	// with equal ones (pods resized in place by a VPA differ like this).
	perPodRequests bool
}

// requests returns pod i's cpu (millicores) and memory (MiB) requests:
// those of its ReplicaSet's template, so equal for the 30 pods of one
// ReplicaSet as the ReplicaSet controller makes them, or its own with
// perPodRequests. Either way 250m and 1Gi on average.
func (l layout) requests(i int) (cpuMilli, memMi int64) {
	if l.perPodRequests {
		return podCPUMilli(i), podMemoryMi(i)
	}
	_, _, rs := l.place(i)
	return podCPUMilli(rs), podMemoryMi(rs)
}

// place returns pod i's node, its slot on the node and its ReplicaSet.
func (l layout) place(i int) (node, slot, rs int) { return i % l.nodes, i / l.nodes, i / podsPerRS }

// podIndex is the index of the pod in slot of node (the inverse of place).
func (l layout) podIndex(node, slot int) int { return slot*l.nodes + node }

func (l layout) pods() int { return l.nodes * l.podsPerNode }

func (l layout) replicaSets() int { return (l.pods() + podsPerRS - 1) / podsPerRS }

func nodeName(i int) string { return fmt.Sprintf("bench-node-%05d", i) }

func namespaceName(i int) string { return fmt.Sprintf("bench-%02d", i) }

func rsNamespace(rs int) string { return namespaceName(rs % namespaces) }

func rsName(rs int) string { return fmt.Sprintf("app-%04d-7d9f8c6b5", rs) }

func appName(rs int) string { return fmt.Sprintf("app-%04d", rs) }

// podName is unique per ReplicaSet: the RS name plus the pod's index.
func podName(rs, i int) string { return fmt.Sprintf("%s-%06d", rsName(rs), i) }

// podCPUMilli spreads cpu over 100m-400m, 250m on average: pod i's usage
// basis (podUsage), and a request (layout.requests).
func podCPUMilli(i int) int64 { return 100 + int64(i*37%7)*50 }

// podMemoryMi spreads memory over 512Mi-1536Mi, 1Gi on average, as
// podCPUMilli does cpu.
func podMemoryMi(i int) int64 { return 512 + int64(i*53%5)*256 }

// newNode is a node with a realistic set of labels; its status (capacity,
// Ready) is written by nodeStatus after the create.
func newNode(i int) *corev1.Node {
	name := nodeName(i)
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"kubernetes.io/hostname":           name,
		"kubernetes.io/os":                 "linux",
		"kubernetes.io/arch":               "amd64",
		"node.kubernetes.io/instance-type": "m5.4xlarge",
		"topology.kubernetes.io/region":    "bench-1",
		"topology.kubernetes.io/zone":      "bench-1" + string(rune('a'+i%zones)),
		benchLabel:                         "true",
	}, Annotations: map[string]string{
		"node.alpha.kubernetes.io/ttl":                           "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true",
	}}, Spec: corev1.NodeSpec{PodCIDR: nodeCIDR(i), PodCIDRs: []string{nodeCIDR(i)}}}
}

func nodeCIDR(i int) string { return fmt.Sprintf("10.%d.%d.0/24", 64+i/256, i%256) }

func nodeIP(i int) string { return fmt.Sprintf("172.16.%d.%d", i/250, 1+i%250) }

func podIP(node, slot int) string {
	return fmt.Sprintf("10.%d.%d.%d", 64+node/256, node%256, 2+slot%250)
}

// nodeStatus makes the node Ready with its capacity, addresses and images.
func nodeStatus(n *corev1.Node, i int, now metav1.Time) {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(nodeCPU), corev1.ResourceMemory: resource.MustParse(nodeMemory),
		corev1.ResourcePods: resource.MustParse(nodePods), corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	cond := func(t corev1.NodeConditionType, s corev1.ConditionStatus, reason string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: s, Reason: reason, LastHeartbeatTime: now, LastTransitionTime: now}
	}
	images := make([]corev1.ContainerImage, 0, 8)
	for k := range 8 {
		images = append(images, corev1.ContainerImage{
			Names:     []string{fmt.Sprintf("registry.example.com/team-%d/service@sha256:%064x", k, k+1), fmt.Sprintf("registry.example.com/team-%d/service:1.%d.0", k, k)},
			SizeBytes: int64(50+k*10) << 20,
		})
	}
	n.Status = corev1.NodeStatus{
		Capacity: capacity, Allocatable: capacity, Phase: corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{
			cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory"),
			cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure"),
			cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID"),
			cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady"),
		},
		Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: nodeIP(i)}, {Type: corev1.NodeHostName, Address: nodeName(i)}},
		NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.34.4", ContainerRuntimeVersion: "containerd://2.0.0",
			KernelVersion: "6.1.0", OSImage: "Debian GNU/Linux 12", OperatingSystem: "linux", Architecture: "amd64"},
		Images: images,
	}
}

// newReplicaSet is the owner of podsPerRS pods (no controller runs it:
// the benchmark starts no controller manager).
func newReplicaSet(rs int) *appsv1.ReplicaSet {
	labels := map[string]string{"app": appName(rs), "pod-template-hash": "7d9f8c6b5"}
	replicas := int32(podsPerRS)
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: rsName(rs), Namespace: rsNamespace(rs), Labels: labels},
		Spec: appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1.0"}}}}},
	}
}

// replicaSetStatus sets every replica ready and available.
func replicaSetStatus(rs *appsv1.ReplicaSet) {
	n := *rs.Spec.Replicas
	rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: n,
		AvailableReplicas: n, ObservedGeneration: rs.Generation}
}

// newPod is pod i (cluster-wide index) of ReplicaSet rs with uid rsUID, bound
// to node, requesting cpu millicores and mem MiB: about 4 KB of JSON with the status podStatus writes (labels,
// annotations, an owner reference, two containers with env, probes,
// resources and mounts, a ConfigMap and a Secret volume, preferred
// anti-affinity; no emptyDir, which DefaultEvictor's evictLocalStoragePods
// default would make every pod unevictable); the API
// server adds the service-account volume, tolerations, defaults and
// managedFields.
func newPod(i, rs int, rsUID types.UID, node string, cpu, mem int64) *corev1.Pod {
	app := appName(rs)
	controller := true
	grace := int64(30)
	nonRoot := true
	labels := map[string]string{
		"app": app, "app.kubernetes.io/name": app, "app.kubernetes.io/instance": app + "-prod",
		"app.kubernetes.io/version": "1.4.2", "app.kubernetes.io/part-of": fmt.Sprintf("team-%d", rs%40),
		"pod-template-hash": "7d9f8c6b5", "tier": []string{"web", "api", "worker"}[rs%3],
	}
	annotations := map[string]string{
		"prometheus.io/scrape": "true", "prometheus.io/port": "9090", "prometheus.io/path": "/metrics",
		"kubectl.kubernetes.io/restartedAt": "2026-11-20T08:00:00Z",
		"checksum/config":                   fmt.Sprintf("%064x", rs*7919+1),
		"example.com/owner-team":            fmt.Sprintf("team-%d@example.com", rs%40),
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: podName(rs, i), Namespace: rsNamespace(rs), Labels: labels, Annotations: annotations,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rsName(rs), UID: rsUID,
				Controller: &controller, BlockOwnerDeletion: &controller}}},
		Spec: corev1.PodSpec{
			NodeName: node, TerminationGracePeriodSeconds: &grace, DNSPolicy: corev1.DNSClusterFirst,
			RestartPolicy: corev1.RestartPolicyAlways, SchedulerName: corev1.DefaultSchedulerName,
			SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: &nonRoot, FSGroup: ptr(int64(2000))},
			Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
					PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}}}}}},
			Containers: []corev1.Container{appContainer(app, cpu, mem), sidecarContainer()},
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config"}}}},
				{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: app + "-tls"}}},
			},
		},
	}
}

func ptr[T any](v T) *T { return &v }

func appContainer(app string, cpu, mem int64) corev1.Container {
	env := []corev1.EnvVar{
		{Name: "APP_NAME", Value: app}, {Name: "APP_ENV", Value: "production"}, {Name: "LOG_LEVEL", Value: "info"},
		{Name: "DATABASE_URL", Value: "postgres://" + app + ".db.svc.cluster.local:5432/" + app + "?sslmode=require"},
		{Name: "CACHE_URL", Value: "redis://cache.shared.svc.cluster.local:6379/0"},
		{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}},
		{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}},
		{Name: "API_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: app + "-secrets"}, Key: "api-token"}}},
	}
	probe := func(path string, delay int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("http")}},
			InitialDelaySeconds: delay, PeriodSeconds: 10, TimeoutSeconds: 2, FailureThreshold: 3, SuccessThreshold: 1}
	}
	return corev1.Container{
		Name: "app", Image: "registry.example.com/" + app + ":1.4.2", ImagePullPolicy: corev1.PullIfNotPresent,
		Args: []string{"--config=/etc/app/config.yaml", "--listen=:8080"},
		Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
		Env: env,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(cpu, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(mem<<20, resource.BinarySI)},
			Limits: corev1.ResourceList{corev1.ResourceCPU: *resource.NewMilliQuantity(2*cpu, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(mem<<20, resource.BinarySI)},
		},
		LivenessProbe: probe("/healthz", 10), ReadinessProbe: probe("/readyz", 5),
		VolumeMounts: []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app", ReadOnly: true},
			{Name: "tls", MountPath: "/etc/tls", ReadOnly: true}},
		TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
}

func sidecarContainer() corev1.Container {
	return corev1.Container{
		Name: "proxy", Image: "registry.example.com/mesh/proxy:1.22.1", ImagePullPolicy: corev1.PullIfNotPresent,
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("64Mi")}},
		TerminationMessagePath: corev1.TerminationMessagePathDefault, TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
}

// podStatus makes the pod Running and Ready on node nodeIndex, as a kubelet
// would report it.
func podStatus(p *corev1.Pod, nodeIndex, slot int, now metav1.Time) {
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now}
	}
	running := func(name, image string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, Image: image, ImageID: image + "@sha256:" + fmt.Sprintf("%064x", len(name)),
			ContainerID: "containerd://" + fmt.Sprintf("%064x", nodeIndex*1000+slot), Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}
	}
	ip := podIP(nodeIndex, slot)
	p.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, QOSClass: corev1.PodQOSBurstable,
		Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers"), cond(corev1.PodInitialized),
			cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
		HostIP: nodeIP(nodeIndex), HostIPs: []corev1.HostIP{{IP: nodeIP(nodeIndex)}},
		PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}}, StartTime: &now,
		ContainerStatuses: []corev1.ContainerStatus{
			running("app", p.Spec.Containers[0].Image), running("proxy", p.Spec.Containers[1].Image)},
	}
}

// usageFactor is how much of its requests node i's pods use: 10% of the
// nodes are hot (1.8x: 84% cpu, LowNodeUtilization's overutilized), 40% cold
// (0.7x: 33% cpu, underutilized) and the rest in between (1.1x).
func usageFactor(node int) float64 {
	switch {
	case node%10 == 0:
		return 1.8
	case node%10 < 5:
		return 0.7
	default:
		return 1.1
	}
}

func milli(v int64) string { return strconv.FormatInt(v, 10) + "m" }

func mebi(v int64) string { return strconv.FormatInt(v, 10) + "Mi" }

// since is a helper for durations printed in seconds with 0.1 s precision.
func since(t time.Time) time.Duration { return time.Since(t).Round(100 * time.Millisecond) }
