package snapshot

import (
	"slices"
	"strconv"
	"unique"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// sharer makes loaded objects share equal parts. Pods of one workload
// have equal labels, containers, tolerations, affinity and owner
// references, and a Go map or slice of structs costs hundreds of bytes, so
// on a 150,000-pod snapshot sharing them saves a third of the memory the
// loaded objects take; repeated strings (namespaces, node names, condition
// types, images) are interned with unique.Make, the sharer holding their
// handles so that the pool keeps them. Parts are matched by their
// JSON text (equal text decodes to equal values), resource lists and
// labels by content. Sharing is safe because loaded objects are never
// modified (Objects: New takes ownership; code that changes an object
// copies it first). The index is dropped when loading ends, and stops
// growing at maxShared entries per kind of part.
type sharer struct {
	lists        map[string]v1.ResourceList
	labels       map[string]map[string]string
	containers   map[string][]v1.Container
	tolerations  map[string][]v1.Toleration
	owners       map[string][]metav1.OwnerReference
	affinity     map[string]*v1.Affinity
	spread       map[string][]v1.TopologySpreadConstraint
	nodeSelector map[string]map[string]string
	// statusLists shares container status lists when statuses is set
	// (live pods trimmed with TrimOptions.DropContainerTimes).
	statusLists map[string][]v1.ContainerStatus
	statuses    bool
	// handles keeps the interned strings' pool entries alive (see intern).
	handles map[unique.Handle[string]]struct{}
	// key is scratch space for a map's key.
	key []byte
	// names is scratch space for sorted map keys.
	names []string
	// renew empties a full index instead of no longer growing it: the
	// informers' sharers live as long as the process, and new workloads
	// must keep being shared (see newLiveSharer).
	renew bool
}

// maxShared bounds each index: past it, new parts are not indexed (a
// cluster of unique pods would otherwise only grow the index).
const maxShared = 1 << 16

func newSharer() *sharer {
	return &sharer{
		lists: map[string]v1.ResourceList{}, labels: map[string]map[string]string{},
		containers: map[string][]v1.Container{}, tolerations: map[string][]v1.Toleration{},
		owners: map[string][]metav1.OwnerReference{}, affinity: map[string]*v1.Affinity{},
		spread: map[string][]v1.TopologySpreadConstraint{}, nodeSelector: map[string]map[string]string{},
		statusLists: map[string][]v1.ContainerStatus{}, handles: map[unique.Handle[string]]struct{}{},
	}
}

// object shares the parts of a decoded pod or node; raw is its JSON.
func (s *sharer) object(obj runtime.Object, raw []byte) {
	switch o := obj.(type) {
	case *v1.Pod:
		s.pod(o, raw)
	case *v1.Node:
		s.node(o)
	}
}

func (s *sharer) pod(p *v1.Pod, raw []byte) {
	p.Labels = s.labelMap(p.Labels)
	byText(s.owners, objectField(objectField(raw, "metadata"), "ownerReferences"), &p.OwnerReferences)
	spec := objectField(raw, "spec")
	byText(s.tolerations, objectField(spec, "tolerations"), &p.Spec.Tolerations)
	byText(s.affinity, objectField(spec, "affinity"), &p.Spec.Affinity)
	byText(s.spread, objectField(spec, "topologySpreadConstraints"), &p.Spec.TopologySpreadConstraints)
	byText(s.nodeSelector, objectField(spec, "nodeSelector"), &p.Spec.NodeSelector)
	for _, cs := range []struct {
		field string
		list  *[]v1.Container
	}{{"initContainers", &p.Spec.InitContainers}, {"containers", &p.Spec.Containers}} {
		if !byText(s.containers, objectField(spec, cs.field), cs.list) {
			for i := range *cs.list {
				s.container(&(*cs.list)[i])
			}
		}
	}
	p.Spec.Overhead = s.list(p.Spec.Overhead)
	s.internPod(p)
}

func (s *sharer) container(c *v1.Container) {
	c.Resources.Requests = s.list(c.Resources.Requests)
	c.Resources.Limits = s.list(c.Resources.Limits)
	intern(s, &c.Name, &c.Image, &c.TerminationMessagePath)
	intern(s, &c.TerminationMessagePolicy)
	intern(s, &c.ImagePullPolicy)
}

// internPod interns the strings many pods repeat.
func (s *sharer) internPod(p *v1.Pod) {
	intern(s, &p.Namespace, &p.GenerateName, &p.Spec.NodeName, &p.Spec.SchedulerName, &p.Spec.ServiceAccountName,
		&p.Spec.DeprecatedServiceAccount, &p.Spec.PriorityClassName, &p.Status.HostIP)
	intern(s, &p.Spec.RestartPolicy)
	intern(s, &p.Spec.DNSPolicy)
	intern(s, &p.Status.Phase)
	intern(s, &p.Status.QOSClass)
	for i := range p.Status.HostIPs {
		intern(s, &p.Status.HostIPs[i].IP)
	}
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		intern(s, &c.Type)
		intern(s, &c.Status)
		intern(s, &c.Reason)
	}
	for _, statuses := range [][]v1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for i := range statuses {
			intern(s, &statuses[i].Name, &statuses[i].Image, &statuses[i].ImageID)
		}
	}
}

// intern replaces each string by its canonical copy (unique.Make), and
// has sh keep the copy's handle: the pool drops an entry once no handle
// to it is left, so without it a garbage collection between two equal
// strings would give the second its own copy.
func intern[S ~string](sh *sharer, ss ...*S) {
	for _, s := range ss {
		if *s != "" {
			h := unique.Make(string(*s))
			if _, ok := sh.handles[h]; !ok && admit(sh.renew, sh.handles) {
				sh.handles[h] = struct{}{}
			}
			*s = S(h.Value())
		}
	}
}

// byText replaces *v by the value decoded earlier from the same JSON text
// (raw, nil when absent) and reports whether it did.
func byText[T any](index map[string]T, raw []byte, v *T) bool {
	if len(raw) == 0 {
		return false
	}
	if shared, ok := index[string(raw)]; ok {
		*v = shared
		return true
	}
	if !admit(false, index) {
		return false
	}
	index[string(raw)] = *v
	return false
}

// node shares n's capacity and allocatable (its labels name it).
func (s *sharer) node(n *v1.Node) {
	n.Status.Capacity = s.list(n.Status.Capacity)
	n.Status.Allocatable = s.list(n.Status.Allocatable)
}

// list returns the shared resource list equal to l: same names, same
// quantities in the same canonical form.
func (s *sharer) list(l v1.ResourceList) v1.ResourceList {
	if len(l) == 0 {
		return l
	}
	s.names = s.names[:0]
	for name := range l {
		s.names = append(s.names, string(name))
	}
	slices.Sort(s.names)
	key := s.key[:0]
	for _, name := range s.names {
		q := l[v1.ResourceName(name)]
		key = appendPart(key, name)
		key = appendPart(key, q.String())
		key = appendPart(key, string(q.Format))
	}
	s.key = key
	if shared, ok := s.lists[string(key)]; ok {
		return shared
	}
	if admit(s.renew, s.lists) {
		s.lists[string(key)] = l
	}
	return l
}

// labelMap returns the shared label map equal to m.
func (s *sharer) labelMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	s.names = s.names[:0]
	for k := range m {
		s.names = append(s.names, k)
	}
	slices.Sort(s.names)
	key := s.key[:0]
	for _, k := range s.names {
		key = appendPart(appendPart(key, k), m[k])
	}
	s.key = key
	if shared, ok := s.labels[string(key)]; ok {
		return shared
	}
	if admit(s.renew, s.labels) {
		s.labels[string(key)] = m
	}
	return m
}

// appendPart appends a length-prefixed string, so that keys are unambiguous.
func appendPart(key []byte, s string) []byte {
	key = strconv.AppendInt(key, int64(len(s)), 10)
	return append(append(key, ':'), s...)
}

// admit reports whether index may take one more entry: below maxShared
// entries, or (renew) after emptying it. The values shared so far stay
// shared by the objects holding them.
func admit[K comparable, T any](renew bool, index map[K]T) bool {
	if len(index) < maxShared {
		return true
	}
	if renew {
		clear(index)
		return true
	}
	return false
}
