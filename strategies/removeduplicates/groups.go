package removeduplicates

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// groupKey identifies the owner of a group: the controller (kind,
// namespace, name and UID, so a controller recreated under the same name
// is a new group). The pods of a group also have the same sorted
// container images (sameImages): an owner whose pods differ in images has
// one group per image list.
type groupKey struct {
	kind      string
	namespace string
	name      string
	uid       types.UID
}

// member is one counted pod of a duplicated group and its node.
type member struct {
	node *snapshot.NodeInfo
	pod  *snapshot.PodInfo
}

// groupInfo is one owner group.
type groupInfo struct {
	key groupKey
	// id is the group's index in index.groups.
	id int
	// replicas counts the group's pods on considered nodes.
	replicas int
	// lastNode is the index of the node the group was last seen on.
	lastNode int
	// dup is true when some node holds more than one pod of the group.
	dup bool
	// start and filled locate a duplicated group's pods in index.members.
	start, filled int
	// rep is a pod of the group: its images are the group's (only while
	// assigning the origin).
	rep *v1.Pod
	// next chains groups of the same owner (differing only in images); -1
	// ends the chain.
	next int32
}

// index holds every owner group and, for the duplicated ones only, their
// pods in snapshot order (node name, then namespace/name), so each node's
// pods of a group are contiguous.
type index struct {
	groups  []groupInfo
	members []member
}

// pods returns a duplicated group's members.
func (x *index) pods(g *groupInfo) []member { return x.members[g.start : g.start+g.replicas] }

// dupGroups counts the duplicated groups.
func (x *index) dupGroups() int {
	n := 0
	for i := range x.groups {
		if x.groups[i].dup {
			n++
		}
	}
	return n
}

// buildIndex groups the counted pods of snap in two passes: the first
// assigns every pod its group, the second copies the pods of the
// duplicated groups into one flat slice. Groups keep the order of their
// first pod, which is deterministic because nodes and pods are sorted.
// Which group a pod belongs to depends on the pod alone, so it is worked
// out once per snapshot lineage (see assignment) and a re-plan on a
// working snapshot only regroups the pods that are left. The lineage's
// feasible nodes per template are returned with the index.
func (d *RemoveDuplicates) buildIndex(snap *snapshot.Snapshot) (*index, *templateFits) {
	a := snap.Memo(memoKey{d: d}, func(origin *snapshot.Snapshot) any { return d.assignOrigin(origin.Nodes()) }).(*assignment)
	x := &index{}
	ids := x.regroup(a, snap)
	x.place(snap.Nodes(), ids)
	return x, &a.fits
}

// memoKey keys a RemoveDuplicates' assignment in a snapshot lineage.
type memoKey struct{ d *RemoveDuplicates }

// assignment is the group of every pod of a lineage's origin snapshot.
type assignment struct {
	// ids are, per node and per pod of the origin, the index of the
	// pod's group in keys (-1: not counted).
	ids [][]int32
	// keys are the groups in the order of their first pod in the origin.
	keys []groupKey
	// fits are the feasible nodes per template, filled as plans ask.
	fits templateFits
}

// assignOrigin works out the group of every pod of the origin's nodes.
func (d *RemoveDuplicates) assignOrigin(nodes []*snapshot.NodeInfo) *assignment {
	total := 0
	for _, ni := range nodes {
		total += len(ni.Pods)
	}
	all := make([]int32, 0, total)
	a := &assignment{ids: make([][]int32, len(nodes))}
	x := &index{}
	byOwner := map[string]int32{} // owner id -> first group of its chain
	for n, ni := range nodes {
		from := len(all)
		for _, pi := range ni.Pods {
			key, ok := d.keyOf(pi.Pod)
			if !ok {
				all = append(all, -1)
				continue
			}
			all = append(all, int32(x.group(byOwner, key, pi.Pod).id))
		}
		a.ids[n] = all[from:len(all):len(all)]
	}
	a.keys = make([]groupKey, len(x.groups))
	for i := range x.groups {
		a.keys[i] = x.groups[i].key
	}
	return a
}

// regroup fills x.groups with the groups of snap's pods, numbered in the
// order of their first pod in snap, and returns every pod's group in
// traversal order (-1 for pods that are not counted).
func (x *index) regroup(a *assignment, snap *snapshot.Snapshot) []int32 {
	nodes := snap.Nodes()
	total := 0
	for _, ni := range nodes {
		total += len(ni.Pods)
	}
	ids := make([]int32, 0, total)
	x.groups = make([]groupInfo, 0, len(a.keys))
	renumbered := make([]int32, len(a.keys))
	for i := range renumbered {
		renumbered[i] = -1
	}
	var pos []int32
	for n := range nodes {
		pos = snap.OriginPositions(n, pos[:0])
		for _, j := range pos {
			old := a.ids[n][j]
			if old < 0 {
				ids = append(ids, -1)
				continue
			}
			id := renumbered[old]
			if id < 0 {
				id = int32(len(x.groups))
				renumbered[old] = id
				x.groups = append(x.groups, groupInfo{key: a.keys[old], id: int(id), lastNode: -1, next: -1})
			}
			g := &x.groups[id]
			g.replicas++
			g.dup = g.dup || g.lastNode == n
			g.lastNode = n
			ids = append(ids, id)
		}
	}
	return ids
}

// group finds or creates the group of pod, whose owner is key. Groups are
// looked up by owner UID, hashing one string, and told apart by their
// owner and images.
func (x *index) group(byOwner map[string]int32, key groupKey, pod *v1.Pod) *groupInfo {
	owner := string(key.uid)
	if owner == "" {
		owner = key.kind + "/" + key.namespace + "/" + key.name
	}
	head, seen := byOwner[owner]
	for id := head; seen && id >= 0; id = x.groups[id].next {
		if g := &x.groups[id]; g.key == key && sameImages(g.rep, pod) {
			return g
		}
	}
	if !seen {
		head = -1
	}
	id := len(x.groups)
	byOwner[owner] = int32(id)
	x.groups = append(x.groups, groupInfo{key: key, rep: pod, id: id, lastNode: -1, next: head})
	return &x.groups[id]
}

// place copies the pods of the duplicated groups into x.members.
func (x *index) place(nodes []*snapshot.NodeInfo, ids []int32) {
	total := 0
	for i := range x.groups {
		if g := &x.groups[i]; g.dup {
			g.start = total
			total += g.replicas
		}
	}
	x.members = make([]member, total)
	k := 0
	for _, ni := range nodes {
		for _, pi := range ni.Pods {
			id := ids[k]
			k++
			if id < 0 || !x.groups[id].dup {
				continue
			}
			g := &x.groups[id]
			x.members[g.start+g.filled] = member{node: ni, pod: pi}
			g.filled++
		}
	}
}

// keyOf returns the pod's group key. Pods that are finished or
// terminating, in a filtered-out namespace, or without a controller of one
// of the ownerKinds are not counted.
func (d *RemoveDuplicates) keyOf(pod *v1.Pod) (groupKey, bool) {
	if snapshot.IsTerminal(pod) || pod.DeletionTimestamp != nil || !d.args.Namespaces.Allows(pod.Namespace) {
		return groupKey{}, false
	}
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil || !isOwnerKind(ref.Kind) {
		return groupKey{}, false
	}
	return groupKey{kind: ref.Kind, namespace: pod.Namespace, name: ref.Name, uid: ref.UID}, true
}

// isOwnerKind reports whether pods of a controller of this kind can be
// duplicates: ReplicaSet, ReplicationController, StatefulSet or Job.
func isOwnerKind(kind string) bool {
	switch kind {
	case "ReplicaSet", "ReplicationController", "StatefulSet", "Job":
		return true
	}
	return false
}

// sameImages reports whether imagesKey(a) == imagesKey(b) without building
// either when both pods have the same one or two images (the pods of one
// controller, nearly always).
func sameImages(a, b *v1.Pod) bool {
	ca, cb := a.Spec.Containers, b.Spec.Containers
	if len(ca) == len(cb) {
		switch len(ca) {
		case 1:
			if ca[0].Image == cb[0].Image {
				return true
			}
		case 2:
			a0, a1 := sorted2(ca[0].Image, ca[1].Image)
			b0, b1 := sorted2(cb[0].Image, cb[1].Image)
			if a0 == b0 && a1 == b1 {
				return true
			}
		}
	}
	return imagesKey(a) == imagesKey(b)
}

// sorted2 returns x and y in order.
func sorted2(x, y string) (string, string) {
	if y < x {
		return y, x
	}
	return x, y
}

// imagesKey joins the pod's container images, sorted. Single-container
// pods, the common case, need no allocation; two-container pods one.
func imagesKey(pod *v1.Pod) string {
	cs := pod.Spec.Containers
	switch len(cs) {
	case 1:
		return cs[0].Image
	case 2:
		a, b := cs[0].Image, cs[1].Image
		if b < a {
			a, b = b, a
		}
		return a + " " + b
	}
	images := make([]string, len(cs))
	for i := range cs {
		images[i] = cs[i].Image
	}
	slices.Sort(images)
	return strings.Join(images, " ")
}

// hasExcludedOwner reports whether any owner reference of the pod is of an
// excluded kind.
func (d *RemoveDuplicates) hasExcludedOwner(pod *v1.Pod) bool {
	if len(d.excluded) == 0 {
		return false
	}
	for i := range pod.OwnerReferences {
		if d.excluded[pod.OwnerReferences[i].Kind] {
			return true
		}
	}
	return false
}
