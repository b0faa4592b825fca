package scenario_test

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/resources"
	"github.com/usage-descheduler/descheduler/pkg/scenario"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

func generate(t testing.TB, p scenario.Params) snapshot.Objects {
	t.Helper()
	objs, err := scenario.Generate(p)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", p, err)
	}
	return objs
}

func params(nodes, podsPerNode int, hot, skew float64, seed int64) scenario.Params {
	p := scenario.Params{Nodes: nodes, PodsPerNode: podsPerNode, Seed: seed}
	p.Default()
	p.HotFraction, p.RequestsSkew = hot, skew
	return p
}

func writeList(t *testing.T, objs snapshot.Objects) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := snapshot.WriteList(&buf, objs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGenerateIsDeterministic(t *testing.T) {
	p := params(60, 20, 0.1, 0.3, 42)
	a, b := generate(t, p), generate(t, p)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("equal Params generated different objects")
	}
	p.Seed = 43
	if reflect.DeepEqual(a, generate(t, p)) {
		t.Fatal("seeds 42 and 43 generated the same cluster")
	}
	small := params(12, 10, 0.1, 0.3, 42)
	if !bytes.Equal(writeList(t, generate(t, small)), writeList(t, generate(t, small))) {
		t.Fatal("equal Params wrote different files")
	}
}

// invariantCases cover sizes, skews, hot fractions and zone counts; each
// runs with three seeds.
var invariantCases = []struct {
	nodes, podsPerNode, zones int
	hot, skew                 float64
	// noBusyPods: no node has the two team Deployment pods a hot node
	// needs, so no node is hot.
	noBusyPods bool
}{
	{1, 30, 1, 0.1, 0, false},
	{10, 10, 2, 0.1, 0.5, false},
	{37, 30, 3, 0.25, 1, false},
	{200, 30, 3, 0.1, 0, false},
	{200, 30, 4, 0.25, 1, false},
	{120, 100, 5, 0.25, 0.7, false}, // nodes nearly full of pods (100 of 110)
	{150, 3, 3, 0.1, 0.2, false},    // no DaemonSets
	{10, 1, 2, 0.1, 0, true},        // system workloads take the whole budget
	{25, 5, 5, 0.2, 1, false},       // one DaemonSet, one dedicated node, a node per zone
	{2, 100, 2, 0.5, 1, false},
}

func TestInvariants(t *testing.T) {
	for _, tc := range invariantCases {
		for seed := int64(1); seed <= 3; seed++ {
			p := params(tc.nodes, tc.podsPerNode, tc.hot, tc.skew, seed)
			p.Zones = tc.zones
			t.Run(fmt.Sprintf("N=%d,P=%d,Z=%d,F=%g,S=%g,seed=%d", tc.nodes, tc.podsPerNode, tc.zones, tc.hot, tc.skew, seed),
				func(t *testing.T) {
					objs := generate(t, p)
					checkCounts(t, p, objs)
					checkPlacement(t, objs)
					if tc.noBusyPods {
						p.HotFraction = 0
					}
					checkUsage(t, p, objs)
					checkOwners(t, objs)
					checkPDBs(t, objs)
					checkClaims(t, objs)
					checkSeries(t, p, objs)
				})
		}
	}
}

// checkCounts: N nodes; exactly N × P live pods; at most
// max(1, round(0.1% × N × P)) Failed ones, which are the only terminal
// pods.
func checkCounts(t *testing.T, p scenario.Params, objs snapshot.Objects) {
	t.Helper()
	s := scenario.Summarize(objs)
	if s.Nodes != p.Nodes {
		t.Errorf("%d nodes, want %d", s.Nodes, p.Nodes)
	}
	if live := s.Pods - s.FailedPods; live != p.Nodes*p.PodsPerNode {
		t.Errorf("%d live pods, want N×P = %d", live, p.Nodes*p.PodsPerNode)
	}
	if maxFailed := max(1, int(math.Round(0.001*float64(p.Nodes*p.PodsPerNode)))); s.FailedPods > maxFailed {
		t.Errorf("%d Failed pods, want at most %d", s.FailedPods, maxFailed)
	}
	if s.PriorityClasses != 4 || s.Namespaces < 10 {
		t.Errorf("%d priority classes and %d namespaces, want 4 and at least 10", s.PriorityClasses, s.Namespaces)
	}
}

// checkPlacement: every pod is bound to an existing node; per node the
// live pods' requests fit allocatable; DaemonSet pods aside, every live pod
// tolerates its node's dedicated taint and matches its nodeSelector.
func checkPlacement(t *testing.T, objs snapshot.Objects) {
	t.Helper()
	nodes := map[string]*v1.Node{}
	for _, n := range objs.Nodes {
		nodes[n.Name] = n
	}
	requested := map[string]resources.List{}
	for _, pod := range objs.Pods {
		n, ok := nodes[pod.Spec.NodeName]
		if !ok {
			t.Fatalf("pod %s/%s bound to unknown node %q", pod.Namespace, pod.Name, pod.Spec.NodeName)
		}
		if snapshot.IsTerminal(pod) {
			continue
		}
		r := requested[n.Name]
		r.Add(resources.PodRequests(pod))
		requested[n.Name] = r
		if team := n.Labels[scenario.LabelDedicated]; team != "" && pod.Spec.NodeSelector[scenario.LabelDedicated] != team &&
			pod.OwnerReferences[0].Kind != "DaemonSet" {
			t.Errorf("pod %s/%s on dedicated node %s without selecting it", pod.Namespace, pod.Name, n.Name)
		}
	}
	for name, r := range requested {
		alloc := resources.FromResourceList(nodes[name].Status.Allocatable)
		if !resources.Fits(r, alloc) {
			t.Errorf("node %s: requests %+v exceed allocatable %+v", name, r, alloc)
		}
	}
}

// checkUsage: round(F × N) hot nodes whose mean cpu usage is over 80% of
// allocatable; every other node under 60%; at F = 0.25 the mean over all
// nodes stays under 70%.
func checkUsage(t *testing.T, p scenario.Params, objs snapshot.Objects) {
	t.Helper()
	var hot, sum float64
	for _, n := range objs.Nodes {
		pct := cpuUsagePercent(objs, n)
		sum += pct
		switch {
		case pct > 80:
			hot++
		case pct >= 60:
			t.Errorf("node %s at %.1f%% cpu usage: neither hot (> 80) nor normal (< 60)", n.Name, pct)
		}
	}
	if want := math.Round(p.HotFraction * float64(p.Nodes)); hot != want {
		t.Errorf("%v hot nodes, want round(%g × %d) = %v", hot, p.HotFraction, p.Nodes, want)
	}
	if mean := sum / float64(p.Nodes); p.HotFraction <= 0.25 && mean >= 70 {
		t.Errorf("mean cpu usage %.1f%% at HotFraction %g, want < 70", mean, p.HotFraction)
	}
	if s := scenario.Summarize(objs); float64(s.HotNodes) != hot {
		t.Errorf("Summarize counts %d hot nodes, want %v", s.HotNodes, hot)
	}
}

func cpuUsagePercent(objs snapshot.Objects, n *v1.Node) float64 {
	return scenario.MeanCPU(objs.NodeMetrics[n.Name]) * 100 / float64(n.Status.Allocatable.Cpu().MilliValue())
}

// checkOwners: every pod has one controller owner reference; the pods of
// one owner UID agree on kind, name and namespace; ReplicaSet pods are
// <app>-<pod-template-hash>-<5 chars>, StatefulSet pods <sts>-<ordinal>,
// DaemonSet pods one per node; different owners have different UIDs.
func checkOwners(t *testing.T, objs snapshot.Objects) {
	t.Helper()
	owners := map[types.UID]metav1.OwnerReference{}
	ownerNS := map[types.UID]string{}
	perNode := map[string]bool{}
	for _, pod := range objs.Pods {
		if len(pod.OwnerReferences) != 1 || pod.OwnerReferences[0].Controller == nil || !*pod.OwnerReferences[0].Controller {
			t.Fatalf("pod %s/%s: owner references %v, want one controller", pod.Namespace, pod.Name, pod.OwnerReferences)
		}
		ref := pod.OwnerReferences[0]
		if prev, ok := owners[ref.UID]; ok && (prev != ref || ownerNS[ref.UID] != pod.Namespace) {
			t.Errorf("owner UID %s is both %s %s/%s and %s %s/%s", ref.UID, prev.Kind, ownerNS[ref.UID], prev.Name,
				ref.Kind, pod.Namespace, ref.Name)
		}
		owners[ref.UID], ownerNS[ref.UID] = ref, pod.Namespace
		switch ref.Kind {
		case "ReplicaSet":
			want := pod.Labels[scenario.LabelApp] + "-" + pod.Labels["pod-template-hash"]
			if ref.Name != want || !strings.HasPrefix(pod.Name, want+"-") || len(pod.Name) != len(want)+6 {
				t.Errorf("pod %s owned by ReplicaSet %s, want <%s>-<5 chars>", pod.Name, ref.Name, want)
			}
		case "StatefulSet":
			if pod.Labels["statefulset.kubernetes.io/pod-name"] != pod.Name ||
				pod.Name != ref.Name+"-"+pod.Labels["apps.kubernetes.io/pod-index"] {
				t.Errorf("StatefulSet %s pod %s: name or identity labels inconsistent", ref.Name, pod.Name)
			}
		case "DaemonSet":
			key := ref.Name + "/" + pod.Spec.NodeName
			if perNode[key] {
				t.Errorf("DaemonSet %s has two pods on %s", ref.Name, pod.Spec.NodeName)
			}
			perNode[key] = true
		default:
			t.Errorf("pod %s: owner kind %s", pod.Name, ref.Kind)
		}
	}
	names := map[string]types.UID{}
	for uid, ref := range owners {
		key := ref.Kind + "/" + ownerNS[uid] + "/" + ref.Name
		if other, dup := names[key]; dup {
			t.Errorf("%s has two UIDs %s and %s", key, other, uid)
		}
		names[key] = uid
	}
}

// checkPDBs: every PDB selects at least one pod of its namespace, and its
// expected pods equal the pods of one owner it selects.
func checkPDBs(t *testing.T, objs snapshot.Objects) {
	t.Helper()
	for _, pdb := range objs.PDBs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			t.Fatalf("PDB %s/%s: %v", pdb.Namespace, pdb.Name, err)
		}
		live := 0
		for _, pod := range objs.Pods {
			if pod.Namespace == pdb.Namespace && sel.Matches(labels.Set(pod.Labels)) && !snapshot.IsTerminal(pod) {
				live++
			}
		}
		if live == 0 || int32(live) != pdb.Status.ExpectedPods {
			t.Errorf("PDB %s/%s selects %d live pods, expects %d", pdb.Namespace, pdb.Name, live, pdb.Status.ExpectedPods)
		}
	}
}

// checkClaims: every persistentVolumeClaim volume of a pod names a claim of
// the pod's namespace with storage class StorageClass, and every claim
// belongs to exactly one pod.
func checkClaims(t *testing.T, objs snapshot.Objects) {
	t.Helper()
	byKey := map[string]*v1.PersistentVolumeClaim{}
	for _, c := range objs.PersistentVolumeClaims {
		byKey[c.Namespace+"/"+c.Name] = c
	}
	used := 0
	for _, pod := range objs.Pods {
		for _, vol := range pod.Spec.Volumes {
			if vol.PersistentVolumeClaim == nil {
				continue
			}
			used++
			c, ok := byKey[pod.Namespace+"/"+vol.PersistentVolumeClaim.ClaimName]
			if !ok || c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != scenario.StorageClass {
				t.Errorf("pod %s/%s: claim %s missing or not of class %s", pod.Namespace, pod.Name,
					vol.PersistentVolumeClaim.ClaimName, scenario.StorageClass)
			}
		}
	}
	if used != len(byKey) || used != len(objs.PersistentVolumeClaims) {
		t.Errorf("%d claim volumes, %d distinct claims, %d claims", used, len(byKey), len(objs.PersistentVolumeClaims))
	}
}

// checkSeries: every node and live pod has a series of W/I + 1 samples,
// sorted, within [Now − W, Now], the newest at Now; Failed pods have none;
// a node's sample is at least the sum of its pods' samples.
func checkSeries(t *testing.T, p scenario.Params, objs snapshot.Objects) {
	t.Helper()
	k := int(p.UsageWindow/p.SampleInterval) + 1
	check := func(what string, s snapshot.Series) {
		if len(s) != k || !s[len(s)-1].Time.Equal(p.Now) {
			t.Fatalf("%s: %d samples ending %v, want %d ending at %v", what, len(s), s[len(s)-1].Time, k, p.Now)
		}
		for i, x := range s {
			if x.Time.Before(p.Now.Add(-p.UsageWindow)) || x.Time.After(p.Now) || i > 0 && !x.Time.After(s[i-1].Time) {
				t.Fatalf("%s: sample %d at %v out of order or outside the window", what, i, x.Time)
			}
			if x.MilliCPU < 0 || x.Memory <= 0 {
				t.Fatalf("%s: sample %d has usage %dm, %d bytes", what, i, x.MilliCPU, x.Memory)
			}
		}
	}
	podSum := map[string][]snapshot.Sample{}
	for _, pod := range objs.Pods {
		s, ok := objs.PodMetrics[types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}]
		if snapshot.IsTerminal(pod) {
			if ok {
				t.Errorf("Failed pod %s/%s has usage samples", pod.Namespace, pod.Name)
			}
			continue
		}
		check("pod "+pod.Name, s)
		sum := podSum[pod.Spec.NodeName]
		if sum == nil {
			sum = make([]snapshot.Sample, k)
		}
		for i := range s {
			sum[i].MilliCPU += s[i].MilliCPU
			sum[i].Memory += s[i].Memory
		}
		podSum[pod.Spec.NodeName] = sum
	}
	for _, n := range objs.Nodes {
		s := objs.NodeMetrics[n.Name]
		check("node "+n.Name, s)
		for i := range s {
			if sum := podSum[n.Name]; sum != nil && (s[i].MilliCPU < sum[i].MilliCPU || s[i].Memory < sum[i].Memory) {
				t.Fatalf("node %s sample %d below the sum of its pods", n.Name, i)
			}
		}
	}
	if len(objs.NodeMetrics) != len(objs.Nodes) {
		t.Errorf("%d node series for %d nodes", len(objs.NodeMetrics), len(objs.Nodes))
	}
}

func TestUsageWindowAndInterval(t *testing.T) {
	p := params(12, 10, 0.1, 0, 1)
	p.UsageWindow, p.SampleInterval = 5*time.Minute, 15*time.Second
	objs := generate(t, p)
	// 5m / 15s + 1 = 21 samples per series.
	checkSeries(t, p, objs)
	if s := scenario.Summarize(objs); s.Samples != 21*(s.NodeSeries+s.PodSeries) {
		t.Errorf("%d samples, want 21 × %d series", s.Samples, s.NodeSeries+s.PodSeries)
	}
}
