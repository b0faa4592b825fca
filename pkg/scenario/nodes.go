package scenario

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Well-known node labels and the generator's own.
const (
	LabelZone         = "topology.kubernetes.io/zone"
	LabelRegion       = "topology.kubernetes.io/region"
	LabelInstanceType = "node.kubernetes.io/instance-type"
	// LabelDisk is "ssd" on the nodes SSD workloads require.
	LabelDisk = "disktype"
	// LabelDedicated (label and NoSchedule taint key) names the team a
	// dedicated node belongs to.
	LabelDedicated = "dedicated"
	// TaintMaintenance is the NoSchedule taint put on a few nodes after
	// their pods were placed (the RemovePodsViolatingNodeTaints situation).
	TaintMaintenance = "maintenance"
	region           = "region-1"
)

// maxPodsPerNode is every node's pod capacity.
const maxPodsPerNode = 110

// instanceType is a node size; capacity and allocatable are shared by
// every node of the type.
type instanceType struct {
	name                  string
	capacity, allocatable v1.ResourceList
	allocCPU, allocMem    int64
}

// instanceTypes: allocatable is capacity minus the kubelet's reservations
// (EKS formula: 110m cpu of 16 cores, 150m of 32; 1565Mi of memory).
func instanceTypes() []instanceType {
	mk := func(name string, cores, gib int64, reservedMilli int64) instanceType {
		allocCPU, allocMem := cores*1000-reservedMilli, gib<<30-1565<<20
		return instanceType{name: name,
			capacity:    resourceList(cores*1000, gib<<30, maxPodsPerNode),
			allocatable: resourceList(allocCPU, allocMem, maxPodsPerNode),
			allocCPU:    allocCPU, allocMem: allocMem}
	}
	return []instanceType{mk("m6i.4xlarge", 16, 64, 110), mk("m6i.8xlarge", 32, 128, 150)}
}

func resourceList(milliCPU, memory, pods int64) v1.ResourceList {
	return v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(pods, resource.DecimalSI),
	}
}

// Node classes: which workloads may run on a node.
const (
	classPlain     = iota // any general workload
	classSSD              // disktype=ssd: general and SSD workloads
	classDedicated        // classDedicated+t: team t's dedicated workloads only
)

// Node-level shares.
const (
	dedicatedShare = 0.02 // of nodes, tainted dedicated=<team>:NoSchedule
	ssdShare       = 0.2  // of the other nodes, labelled disktype=ssd
)

// dedicatedTeams are the teams that own dedicated nodes (namespace = team).
var dedicatedTeams = [...]string{"ml-platform", "data"}

// nodeSpec is a node of the model, with its placement state.
type nodeSpec struct {
	name   string
	zone   int
	typ    *instanceType
	class  int
	weight float64 // placement weight (RequestsSkew)
	// scoreDen is allocatable cpu × weight, the placement score's divisor.
	scoreDen float64
	ip       string
	// Requested sums the requests of the live pods placed on the node.
	reqCPU, reqMem, reqPods int64
	// Situations decided after placement.
	hot, maintenance, lostDisk bool
	created                    time.Time
	uid                        types.UID
}

// genNodes draws the nodes: zone round robin (node i in zone i mod Z),
// instance type by rank in the zone (ranks 1 and 3 of every 5 are the
// larger type, so every zone has the same mix: 60/40), classes (2%
// dedicated, split between the teams; 20% of the others SSD) and the
// placement weight
//
//	w = 1 − S + S·(0.1 + 2.9·r³), r ~ U[0,1)
//
// (S = RequestsSkew), drawn for every node whatever S, so that a larger S
// concentrates requests on the same nodes.
func genNodes(p Params, rng *rand.Rand, types []instanceType) []nodeSpec {
	nodes := make([]nodeSpec, p.Nodes)
	width := max(5, len(fmt.Sprint(p.Nodes)))
	for i := range nodes {
		typ := &types[0]
		if rank := (i / p.Zones) % 5; rank == 1 || rank == 3 {
			typ = &types[1]
		}
		r := rng.Float64()
		weight := 1 - p.RequestsSkew + p.RequestsSkew*(0.1+2.9*r*r*r)
		nodes[i] = nodeSpec{
			name: fmt.Sprintf("node-%0*d", width, i+1), zone: i % p.Zones, typ: typ,
			weight: weight, scoreDen: float64(typ.allocCPU) * weight,
			ip:      fmt.Sprintf("10.%d.%d.%d", 16+i/65536, i/256%256, i%256),
			created: p.Now.Add(-seconds(rng, 30*day, 60*day)),
			uid:     newUID(rng),
		}
	}
	perm := rng.Perm(p.Nodes)
	dedicated := int(math.Round(dedicatedShare * float64(p.Nodes)))
	if dedicated >= p.Nodes {
		dedicated = 0
	}
	for k, i := range perm {
		switch {
		case k < dedicated:
			nodes[i].class = classDedicated + k%len(dedicatedTeams)
		case rng.Float64() < ssdShare:
			nodes[i].class = classSSD
		}
	}
	return nodes
}

// team returns the dedicated team index of a node, or -1.
func (n *nodeSpec) team() int {
	if n.class >= classDedicated {
		return n.class - classDedicated
	}
	return -1
}

// zoneName is zone-a … zone-z, then zone-aa, zone-ab, ….
func zoneName(z int) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	s := ""
	for z >= 0 {
		s = string(letters[z%26]) + s
		z = z/26 - 1
	}
	return "zone-" + s
}

// nodeObjects builds the API objects; nodes of one type share capacity and
// allocatable, and every node shares its conditions and node info.
func nodeObjects(nodes []nodeSpec, now time.Time) []*v1.Node {
	conds := nodeConditions(now.Add(-30*day), now.Add(-10*time.Second))
	info := v1.NodeSystemInfo{KubeletVersion: "v1.34.4", KubeProxyVersion: "v1.34.4", OperatingSystem: "linux",
		Architecture: "amd64", OSImage: "Amazon Linux 2023.9", KernelVersion: "6.12.40",
		ContainerRuntimeVersion: "containerd://2.1.4"}
	arr := make([]v1.Node, len(nodes))
	out := make([]*v1.Node, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		arr[i] = v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: n.name, UID: n.uid, Labels: nodeLabels(n),
				CreationTimestamp: metav1.NewTime(n.created)},
			Spec: v1.NodeSpec{Taints: nodeTaints(n)},
			Status: v1.NodeStatus{Capacity: n.typ.capacity, Allocatable: n.typ.allocatable, Conditions: conds,
				NodeInfo: info, Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: n.ip},
					{Type: v1.NodeHostName, Address: n.name}}},
		}
		out[i] = &arr[i]
	}
	return out
}

func nodeLabels(n *nodeSpec) map[string]string {
	l := map[string]string{
		v1.LabelHostname: n.name, LabelZone: zoneName(n.zone), LabelRegion: region,
		LabelInstanceType: n.typ.name, v1.LabelOSStable: "linux", v1.LabelArchStable: "amd64",
	}
	if n.class == classSSD && !n.lostDisk {
		l[LabelDisk] = "ssd"
	}
	if t := n.team(); t >= 0 {
		l[LabelDedicated] = dedicatedTeams[t]
	}
	return l
}

func nodeTaints(n *nodeSpec) []v1.Taint {
	var taints []v1.Taint
	if t := n.team(); t >= 0 {
		taints = append(taints, v1.Taint{Key: LabelDedicated, Value: dedicatedTeams[t], Effect: v1.TaintEffectNoSchedule})
	}
	if n.maintenance {
		taints = append(taints, v1.Taint{Key: TaintMaintenance, Value: "kernel-upgrade", Effect: v1.TaintEffectNoSchedule})
	}
	return taints
}

func nodeConditions(since, heartbeat time.Time) []v1.NodeCondition {
	t, hb := metav1.NewTime(since), metav1.NewTime(heartbeat)
	c := func(typ v1.NodeConditionType, status v1.ConditionStatus, reason string) v1.NodeCondition {
		return v1.NodeCondition{Type: typ, Status: status, Reason: reason, LastHeartbeatTime: hb, LastTransitionTime: t}
	}
	return []v1.NodeCondition{
		c(v1.NodeMemoryPressure, v1.ConditionFalse, "KubeletHasSufficientMemory"),
		c(v1.NodeDiskPressure, v1.ConditionFalse, "KubeletHasNoDiskPressure"),
		c(v1.NodePIDPressure, v1.ConditionFalse, "KubeletHasSufficientPID"),
		c(v1.NodeReady, v1.ConditionTrue, "KubeletReady"),
	}
}
