// Command genexample writes the example snapshots into a directory:
// cluster.yaml, a deterministic
// cluster of 20 nodes and about 300 pods whose requests are skewed (four
// crowded nodes, six nearly empty ones), plus one situation for each of the
// other strategies (a tainted node, a lost node label, duplicates, zone
// skew, anti-affinity, restarts, old and failed pods); and
// hotspot-cluster.yaml, balanced requests with one node hot by real usage
// (see hotspotCluster). Run `make example`.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	b "github.com/usage-descheduler/descheduler/test/builders"
)

// now is the clock the example is meant to be simulated at (make run passes it as --now).
var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

const zoneKey = "topology.kubernetes.io/zone"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: genexample DIR")
		os.Exit(2)
	}
	for name, objs := range map[string]snapshot.Objects{"cluster.yaml": cluster(), "hotspot-cluster.yaml": hotspotCluster()} {
		addWorkloads(&objs)
		if err := write(filepath.Join(os.Args[1], name), objs); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func write(path string, objs snapshot.Objects) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = snapshot.WriteList(f, objs)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func cluster() snapshot.Objects {
	var objs snapshot.Objects
	for i := 1; i <= 20; i++ {
		objs.Nodes = append(objs.Nodes, node(i))
	}
	for _, ns := range []string{"kube-system", "shop", "batch", "data"} {
		objs.Namespaces = append(objs.Namespaces, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	objs.PriorityClasses = priorityClasses()
	objs.Pods = append(objs.Pods, systemPods()...)
	objs.Pods = append(objs.Pods, skewedWorkloads()...)
	objs.Pods = append(objs.Pods, situations()...)
	objs.PDBs = situationPDBs()
	return objs
}

// node i: 8 cpu, 32Gi, 110 pods; odd nodes in zone-a, even in zone-b;
// node-20 is tainted dedicated=gpu, node-19 is cordoned, node-07 has disktype=ssd.
func node(i int) *v1.Node {
	nb := b.MakeNode(fmt.Sprintf("node-%02d", i)).Capacity("8", "32Gi", 110).Label(zoneKey, zoneOf(i))
	switch i {
	case 7:
		nb.Label("disktype", "ssd")
	case 19:
		nb.Unschedulable()
	case 20:
		nb.Taint("dedicated", "gpu", v1.TaintEffectNoSchedule)
	}
	return nb.Obj()
}

func zoneOf(i int) string {
	if i%2 == 1 {
		return "zone-a"
	}
	return "zone-b"
}

func nodeName(i int) string { return fmt.Sprintf("node-%02d", i) }

func priorityClasses() []*schedulingPC {
	return []*schedulingPC{
		pc("system-cluster-critical", 2000000000), pc("system-node-critical", 2000001000),
		pc("high", 10000), pc("low", 100),
	}
}

// systemPods: a DaemonSet pod on every node and a critical pod on node-01;
// the DefaultEvictor protects them.
func systemPods() []*v1.Pod {
	var pods []*v1.Pod
	for i := 1; i <= 20; i++ {
		pods = append(pods, b.MakePod("kube-system", fmt.Sprintf("node-exporter-%02d", i)).Node(nodeName(i)).
			Req("100m", "128Mi").OwnedBy("DaemonSet", "node-exporter").Created(now.Add(-720*time.Hour)).Obj())
	}
	pods = append(pods, b.MakePod("kube-system", "coredns-7d4f-abcde").Node(nodeName(1)).Req("100m", "70Mi").
		OwnedBy("ReplicaSet", "coredns-7d4f").Priority(2000000000, "system-cluster-critical").
		Created(now.Add(-720*time.Hour)).Obj())
	return pods
}

// skewedWorkloads puts 16 pods on each crowded node (01-04: about 80% of
// cpu requested), 9 on the middle nodes (05-14: about 45%) and 2 on the
// nearly empty ones (15-20: about 10%).
func skewedWorkloads() []*v1.Pod {
	var pods []*v1.Pod
	apps := []struct {
		name, cpu, mem, priority string
	}{{"web", "500m", "1Gi", ""}, {"api", "400m", "2Gi", "high"}, {"worker", "300m", "512Mi", "low"}}
	perNode := func(i int) int {
		switch {
		case i <= 4:
			return 16
		case i <= 14:
			return 9
		default:
			return 2
		}
	}
	for i := 1; i <= 20; i++ {
		for k := 0; k < perNode(i); k++ {
			app := apps[k%len(apps)]
			pb := b.MakePod("shop", fmt.Sprintf("%s-%02d-%02d", app.name, i, k)).Node(nodeName(i)).
				Req(app.cpu, app.mem).OwnedBy("ReplicaSet", app.name+"-5d9c").Label("app", app.name).
				Image(app.name + ":1.4").Created(now.Add(-48 * time.Hour))
			if app.priority != "" {
				pb.Priority(priorityValue(app.priority), app.priority)
			}
			if i == 20 {
				pb.Toleration("dedicated", "gpu", v1.TaintEffectNoSchedule)
			}
			pods = append(pods, pb.Obj())
		}
	}
	return pods
}

func priorityValue(name string) int32 {
	if name == "high" {
		return 10000
	}
	return 100
}
