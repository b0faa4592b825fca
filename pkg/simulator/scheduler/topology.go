package scheduler

// keyIndex maps every node to its topology domain for one node label key:
// dom[node id] is the domain id of the node's value, -1 when the node does
// not have the key. Domain ids are dense, so per-domain counts are slices.
// Built on first use of the key, kept up to date by SetNode; ids of values
// no node carries any more stay allocated (they are never eligible).
type keyIndex struct {
	key    string
	dom    []int32
	values []string // domain id -> label value
	ids    map[string]int32
}

// topology returns the index of a topology key.
func (c *Cluster) topology(key string) *keyIndex {
	if ki, ok := c.topo[key]; ok {
		return ki
	}
	ki := &keyIndex{key: key, dom: make([]int32, 0, len(c.nodes)), ids: map[string]int32{}}
	for _, n := range c.nodes {
		ki.set(n)
	}
	c.topo[key] = ki
	return ki
}

// set records the domain of n (a new node or a changed one).
func (ki *keyIndex) set(n *nodeRecord) {
	d := int32(-1)
	if v, ok := n.node.Labels[ki.key]; ok {
		id, known := ki.ids[v]
		if !known {
			id = int32(len(ki.values))
			ki.ids[v] = id
			ki.values = append(ki.values, v)
		}
		d = id
	}
	if int(n.id) == len(ki.dom) {
		ki.dom = append(ki.dom, d)
	} else {
		ki.dom[n.id] = d
	}
}

// domainsOf returns the key indexes of constraints in order.
func (c *Cluster) domainsOf(cons []spreadConstraint) []*keyIndex {
	out := make([]*keyIndex, len(cons))
	for i := range cons {
		out[i] = c.topology(cons[i].key)
	}
	return out
}

// hasAll reports whether node id has every key of kis.
func hasAll(kis []*keyIndex, id int32) bool {
	for _, ki := range kis {
		if ki.dom[id] < 0 {
			return false
		}
	}
	return true
}
