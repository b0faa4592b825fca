package scenario

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// realize gives the pods and nodes of objs what real ones carry besides the
// fields the model decides (Params.Realistic): per workload, environment
// variables, probes, a preStop hook, command and args, ports, a security
// context, extra labels and annotations (one a long JSON document like
// kubectl's last-applied-configuration); per pod, the projected
// service-account token and a ConfigMap volume, managedFields, pod IPs and
// container status IDs; per node, about 50 images, annotations, more labels,
// managedFields, node info IDs, a pod CIDR and a provider ID. None of these
// changes what the descheduler decides: no resource, toleration, affinity,
// owner or eviction annotation is added or changed. It draws only from rng,
// so the other objects stay as without Realistic.
func (g *gen) realize(objs snapshot.Objects, rng *rand.Rand) {
	tpl := make([]*realPodParts, len(g.wls))
	for wi := range g.wls {
		tpl[wi] = newRealPodParts(&g.wls[wi], rng)
	}
	for i, pod := range objs.Pods {
		realizePod(pod, tpl[g.pods[i].wl], &g.nodes[g.pods[i].node], rng)
	}
	pool := imagePool(rng)
	for i, node := range objs.Nodes {
		realizeNode(node, &g.nodes[i], pool, rng)
	}
}

// realPodParts are the realistic parts every pod of a workload shares.
type realPodParts struct {
	labels      map[string]string // added to the pod's labels
	annotations map[string]string
	container   v1.Container // the fields added to the pod's only container
	fields      []byte       // managedFields FieldsV1 of the controller
}

func newRealPodParts(w *workload, rng *rand.Rand) *realPodParts {
	team := w.namespace
	c := v1.Container{
		Command: []string{"/usr/local/bin/" + w.container},
		Args: []string{"--config=/etc/" + w.container + "/config.yaml", "--log-format=json", "--v=2",
			"--metrics-bind-address=:9090", "--health-probe-bind-address=:8081"},
		Ports: []v1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: v1.ProtocolTCP},
			{Name: "metrics", ContainerPort: 9090, Protocol: v1.ProtocolTCP}},
		Env:     realEnv(w, rng),
		EnvFrom: []v1.EnvFromSource{{ConfigMapRef: &v1.ConfigMapEnvSource{LocalObjectReference: v1.LocalObjectReference{Name: w.name + "-env"}}}},
		LivenessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/healthz",
			Port: intstr.FromInt32(8081), Scheme: v1.URISchemeHTTP}}, InitialDelaySeconds: 15, TimeoutSeconds: 1,
			PeriodSeconds: 20, SuccessThreshold: 1, FailureThreshold: 3},
		ReadinessProbe: &v1.Probe{ProbeHandler: v1.ProbeHandler{HTTPGet: &v1.HTTPGetAction{Path: "/readyz",
			Port: intstr.FromInt32(8081), Scheme: v1.URISchemeHTTP}}, InitialDelaySeconds: 5, TimeoutSeconds: 1,
			PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3},
		Lifecycle: &v1.Lifecycle{PreStop: &v1.LifecycleHandler{Exec: &v1.ExecAction{Command: []string{"/bin/sh", "-c", "sleep 5"}}}},
		SecurityContext: &v1.SecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)),
			AllowPrivilegeEscalation: ptr(false), ReadOnlyRootFilesystem: ptr(true),
			Capabilities: &v1.Capabilities{Drop: []v1.Capability{"ALL"}}},
	}
	template, _ := json.Marshal(struct {
		Name  string   `json:"name"`
		Image string   `json:"image"`
		Args  []string `json:"args"`
	}{w.container, w.image, c.Args})
	return &realPodParts{
		labels: map[string]string{"app.kubernetes.io/name": w.name, "app.kubernetes.io/part-of": team,
			"app.kubernetes.io/version":    "1." + strconv.Itoa(rng.IntN(40)) + "." + strconv.Itoa(rng.IntN(10)),
			"app.kubernetes.io/managed-by": "Helm", "team": team},
		annotations: map[string]string{
			"prometheus.io/scrape": "true", "prometheus.io/port": "9090", "prometheus.io/path": "/metrics",
			"checksum/config":                   hexString(rng, 64),
			"kubectl.kubernetes.io/restartedAt": w.rollout.Format(time.RFC3339),
			"example.com/last-applied-template": string(template),
		},
		container: c,
		fields:    controllerFields(w.container),
	}
}

// realEnv is a workload's environment: the downward-API variables, a
// secret, and plain settings.
func realEnv(w *workload, rng *rand.Rand) []v1.EnvVar {
	field := func(name, path string) v1.EnvVar {
		return v1.EnvVar{Name: name, ValueFrom: &v1.EnvVarSource{FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
	}
	return []v1.EnvVar{
		field("POD_NAME", "metadata.name"), field("POD_NAMESPACE", "metadata.namespace"),
		field("POD_IP", "status.podIP"), field("NODE_NAME", "spec.nodeName"),
		{Name: "DATABASE_PASSWORD", ValueFrom: &v1.EnvVarSource{SecretKeyRef: &v1.SecretKeySelector{
			LocalObjectReference: v1.LocalObjectReference{Name: w.name + "-db"}, Key: "password"}}},
		{Name: "LOG_LEVEL", Value: "info"},
		{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: "http://otel-collector.monitoring.svc.cluster.local:4317"},
		{Name: "JAVA_TOOL_OPTIONS", Value: "-XX:MaxRAMPercentage=75.0 -XX:+UseG1GC -XX:+ExitOnOutOfMemoryError -Dfile.encoding=UTF-8"},
		{Name: "CACHE_TTL_SECONDS", Value: strconv.Itoa(30 + rng.IntN(600))},
	}
}

// controllerFields is the FieldsV1 document the controller that creates
// the pods owns.
func controllerFields(container string) []byte {
	return []byte(`{"f:metadata":{"f:annotations":{".":{},"f:checksum/config":{},"f:example.com/last-applied-template":{},` +
		`"f:kubectl.kubernetes.io/restartedAt":{},"f:prometheus.io/path":{},"f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},` +
		`"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},` +
		`"f:app.kubernetes.io/part-of":{},"f:app.kubernetes.io/version":{},"f:team":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"\"}":{}}},` +
		`"f:spec":{"f:containers":{"k:{\"name\":\"` + container + `\"}":{".":{},"f:args":{},"f:command":{},"f:env":{},` +
		`"f:image":{},"f:livenessProbe":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{},` +
		`"f:securityContext":{},"f:volumeMounts":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:volumes":{}}}`)
}

// kubeletFields is the FieldsV1 document the kubelet owns in the status.
var kubeletFields = []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{},"k:{\"type\":\"Ready\"}":{}},` +
	`"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{},"f:startTime":{}}}`)

// realizePod adds the workload's realistic parts and the pod's own: its
// token and ConfigMap volumes (mounted in its container), managedFields,
// IPs and container status IDs.
func realizePod(pod *v1.Pod, rp *realPodParts, nd *nodeSpec, rng *rand.Rand) {
	labels := make(map[string]string, len(pod.Labels)+len(rp.labels))
	for k, v := range pod.Labels {
		labels[k] = v
	}
	for k, v := range rp.labels {
		labels[k] = v
	}
	pod.Labels, pod.Annotations = labels, rp.annotations
	token := "kube-api-access-" + lowerAlnum(rng, 5)
	pod.Spec.Volumes = append(append([]v1.Volume(nil), pod.Spec.Volumes...),
		v1.Volume{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{
			LocalObjectReference: v1.LocalObjectReference{Name: pod.Labels[LabelApp] + "-config"}, DefaultMode: ptr(int32(420))}}},
		tokenVolume(token))
	c := pod.Spec.Containers[0]
	add := rp.container
	c.Command, c.Args, c.Ports, c.Env, c.EnvFrom = add.Command, add.Args, add.Ports, add.Env, add.EnvFrom
	c.LivenessProbe, c.ReadinessProbe, c.Lifecycle, c.SecurityContext = add.LivenessProbe, add.ReadinessProbe, add.Lifecycle, add.SecurityContext
	c.VolumeMounts = append(append([]v1.VolumeMount(nil), c.VolumeMounts...),
		v1.VolumeMount{Name: "config", MountPath: "/etc/" + c.Name, ReadOnly: true},
		v1.VolumeMount{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true})
	pod.Spec.Containers = []v1.Container{c}
	pod.Spec.EnableServiceLinks = ptr(true)
	pod.Spec.PreemptionPolicy = ptr(v1.PreemptLowerPriority)
	pod.Spec.SecurityContext = &v1.PodSecurityContext{FSGroup: ptr(int64(65532)),
		SeccompProfile: &v1.SeccompProfile{Type: v1.SeccompProfileTypeRuntimeDefault}}
	ip := fmt.Sprintf("10.%d.%d.%d", 128+rng.IntN(64), rng.IntN(256), 1+rng.IntN(254))
	pod.Status.PodIP, pod.Status.PodIPs = ip, []v1.PodIP{{IP: ip}}
	pod.Status.HostIPs = []v1.HostIP{{IP: nd.ip}}
	created := pod.CreationTimestamp
	pod.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: &created, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: rp.fields}},
		{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: pod.Status.StartTime,
			FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: kubeletFields}, Subresource: "status"},
	}
	statuses := make([]v1.ContainerStatus, len(pod.Status.ContainerStatuses))
	for i, st := range pod.Status.ContainerStatuses {
		st.ImageID = imageRepo(st.Image) + "@sha256:" + hexString(rng, 64)
		st.ContainerID = "containerd://" + hexString(rng, 64)
		st.VolumeMounts = []v1.VolumeMountStatus{{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
			ReadOnly: true, RecursiveReadOnly: ptr(v1.RecursiveReadOnlyDisabled)}}
		statuses[i] = st
	}
	pod.Status.ContainerStatuses = statuses
}

// tokenVolume is the projected service-account token volume the admission
// plugin adds to every pod.
func tokenVolume(name string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Projected: &v1.ProjectedVolumeSource{
		DefaultMode: ptr(int32(420)),
		Sources: []v1.VolumeProjection{
			{ServiceAccountToken: &v1.ServiceAccountTokenProjection{ExpirationSeconds: ptr(int64(3607)), Path: "token"}},
			{ConfigMap: &v1.ConfigMapProjection{LocalObjectReference: v1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []v1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &v1.DownwardAPIProjection{Items: []v1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &v1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		}}}}
}

// imageRepo is an image reference without its tag.
func imageRepo(image string) string {
	for i := len(image) - 1; i >= 0 && image[i] != '/'; i-- {
		if image[i] == ':' {
			return image[:i]
		}
	}
	return image
}

// imagePool is the images nodes report: 200 of them, each with its digest
// reference and tag reference.
func imagePool(rng *rand.Rand) []v1.ContainerImage {
	pool := make([]v1.ContainerImage, 200)
	for i := range pool {
		repo := fmt.Sprintf("123456789012.dkr.ecr.region-1.amazonaws.com/%s/%s-%s",
			teamNamespaces[i%len(teamNamespaces)], components[rng.IntN(len(components))], roles[rng.IntN(len(roles))])
		pool[i] = v1.ContainerImage{Names: []string{repo + "@sha256:" + hexString(rng, 64),
			repo + ":v1." + strconv.Itoa(rng.IntN(100))}, SizeBytes: 5<<20 + rng.Int64N(900<<20)}
	}
	return pool
}

// realizeNode adds a node's images (50 of the pool), annotations, labels,
// managedFields, IDs, pod CIDR and provider ID.
func realizeNode(node *v1.Node, n *nodeSpec, pool []v1.ContainerImage, rng *rand.Rand) {
	images := make([]v1.ContainerImage, 50)
	start := rng.IntN(len(pool))
	for i := range images {
		images[i] = pool[(start+3*i)%len(pool)]
	}
	node.Status.Images = images
	labels := make(map[string]string, len(node.Labels)+6)
	for k, v := range node.Labels {
		labels[k] = v
	}
	labels["beta.kubernetes.io/arch"], labels["beta.kubernetes.io/os"] = "amd64", "linux"
	labels["beta.kubernetes.io/instance-type"] = n.typ.name
	labels["failure-domain.beta.kubernetes.io/zone"] = node.Labels[LabelZone]
	labels["eks.amazonaws.com/nodegroup"] = "ng-" + n.typ.name
	labels["eks.amazonaws.com/nodegroup-image"] = "ami-" + hexString(rng, 17)
	node.Labels = labels
	node.Annotations = map[string]string{
		"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true",
		"csi.volume.kubernetes.io/nodeid":      `{"ebs.csi.aws.com":"i-` + hexString(rng, 17) + `"}`,
		"alpha.kubernetes.io/provided-node-ip": n.ip,
	}
	node.Spec.PodCIDR = fmt.Sprintf("10.%d.%d.0/24", 128+rng.IntN(64), rng.IntN(256))
	node.Spec.PodCIDRs = []string{node.Spec.PodCIDR}
	node.Spec.ProviderID = "aws:///region-1" + node.Labels[LabelZone][4:] + "/i-" + hexString(rng, 17)
	node.Status.Addresses = append(append([]v1.NodeAddress(nil), node.Status.Addresses...),
		v1.NodeAddress{Type: v1.NodeInternalDNS, Address: "ip-" + n.ip + ".region-1.compute.internal"})
	info := node.Status.NodeInfo
	info.MachineID, info.SystemUUID, info.BootID = hexString(rng, 32), string(newUID(rng)), string(newUID(rng))
	node.Status.NodeInfo = info
	node.Status.DaemonEndpoints = v1.NodeDaemonEndpoints{KubeletEndpoint: v1.DaemonEndpoint{Port: 10250}}
	t := node.CreationTimestamp
	node.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "v1", Time: &t, FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: kubeletNodeFields}, Subresource: "status"}}
}

// kubeletNodeFields is the FieldsV1 document the kubelet owns in a node's
// status.
var kubeletNodeFields = []byte(`{"f:status":{"f:allocatable":{"f:cpu":{},"f:memory":{},"f:pods":{}},"f:capacity":{"f:cpu":{},` +
	`"f:memory":{},"f:pods":{}},"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},` +
	`"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},` +
	`"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{}}},` +
	`"f:images":{},"f:nodeInfo":{"f:bootID":{},"f:machineID":{},"f:systemUUID":{}}}}`)

// hexString returns n random lower-case hex digits.
func hexString(rng *rand.Rand, n int) string {
	const hex = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = hex[rng.IntN(16)]
	}
	return string(b)
}

// lowerAlnum returns n random characters as in generated name suffixes.
func lowerAlnum(rng *rand.Rand, n int) string {
	const chars = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[rng.IntN(len(chars))]
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }
