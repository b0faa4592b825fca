package descheduler

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"

	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// Defaults of the history ConfigMap.
const (
	// DefaultHistoryConfigMap is the ConfigMap's name when
	// ConfigMapStore.Name is empty.
	DefaultHistoryConfigMap = "descheduler-history"
	// HistoryDataKey is the ConfigMap data key holding the history.
	HistoryDataKey = "history.json"
	// DefaultHistoryMaxBytes bounds the encoded history when
	// ConfigMapStore.MaxBytes is 0: the API server rejects ConfigMaps whose
	// data exceeds 1 MiB (1,048,576 bytes); the remaining 48,576 bytes
	// leave room for the key and any other keys.
	DefaultHistoryMaxBytes = 1_000_000
	// HistoryFormatVersion is the version of the encoding; a document of
	// another version is refused rather than misread.
	HistoryFormatVersion = 1
)

// ConfigMapStore persists the eviction history in a ConfigMap that the
// descheduler owns in its own namespace, so a restart or a new leader
// keeps every cooldown. It needs RBAC verbs get, create and update on
// configmaps in Namespace. The history is compact JSON (EncodeHistory)
// under HistoryDataKey; other keys of the ConfigMap are left alone.
//
// Writes use optimistic concurrency: Get, then Update with the read
// resourceVersion. When the ConfigMap changed since this store last read
// or wrote it (another writer, e.g. a previous leader finishing its last
// cycle; or a Conflict, after which it is read again), the stored history
// is merged in before writing: the union of the evictions and the latest
// node state per node. Dry runs must not call Save: the caller decides.
// Use one store per process (it remembers the last resourceVersion); its
// calls are serialized, so two saves of one process never conflict.
type ConfigMapStore struct {
	// Client talks to the API server.
	Client kubernetes.Interface
	// Namespace is the descheduler's own namespace (required).
	Namespace string
	// Name is the ConfigMap's name; empty: DefaultHistoryConfigMap.
	Name string
	// MaxBytes bounds the encoded history; 0: DefaultHistoryMaxBytes.
	MaxBytes int

	mu     sync.Mutex
	known  bool   // lastRV was read or written by this store
	lastRV string // resourceVersion last read or written
}

var _ HistoryStore = &ConfigMapStore{}

func (s *ConfigMapStore) name() string {
	if s.Name != "" {
		return s.Name
	}
	return DefaultHistoryConfigMap
}

func (s *ConfigMapStore) ref() string { return s.Namespace + "/" + s.name() }

func (s *ConfigMapStore) remember(rv string) {
	s.known, s.lastRV = true, rv
}

// Load reads the history. An absent ConfigMap (or key) is an empty
// history, not an error. Corrupt data is an error naming the ConfigMap and
// key; the caller can start empty, and the next Save overwrites it.
func (s *ConfigMapStore) Load(ctx context.Context) ([]snapshot.Eviction, NodeStates, error) {
	if s.Namespace == "" {
		return nil, nil, fmt.Errorf("history ConfigMap %q: no namespace set", s.name())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, s.name(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		s.remember("")
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("reading ConfigMap %s: %w", s.ref(), err)
	}
	s.remember(cm.ResourceVersion)
	data, ok := cm.Data[HistoryDataKey]
	if !ok {
		return nil, nil, nil
	}
	entries, states, err := DecodeHistory([]byte(data))
	if err != nil {
		return nil, nil, fmt.Errorf("ConfigMap %s key %q: %w", s.ref(), HistoryDataKey, err)
	}
	return entries, states, nil
}

// Save writes the history (see SaveMerged).
func (s *ConfigMapStore) Save(ctx context.Context, entries []snapshot.Eviction, states NodeStates) error {
	_, _, err := s.SaveMerged(ctx, entries, states)
	return err
}

// SaveMerged writes the history, merged with the stored one when another
// writer changed it, creating the ConfigMap when absent (AlreadyExists
// retries as an update). When the encoding exceeds MaxBytes, the oldest
// evictions are dropped until it fits (logged with their number). It
// returns what it wrote.
func (s *ConfigMapStore) SaveMerged(ctx context.Context, entries []snapshot.Eviction, states NodeStates) ([]snapshot.Eviction, NodeStates, error) {
	if s.Namespace == "" {
		return nil, nil, fmt.Errorf("history ConfigMap %q: no namespace set", s.name())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var w written
	retriable := func(err error) bool { return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err) }
	err := retry.OnError(retry.DefaultRetry, retriable, func() error {
		var err error
		w, err = s.writeOnce(ctx, entries, states)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("writing ConfigMap %s: %w", s.ref(), err)
	}
	if w.dropped > 0 {
		klog.FromContext(ctx).Info("Dropped the oldest evictions so the history fits its ConfigMap",
			"configMap", klog.KRef(s.Namespace, s.name()), "dropped", w.dropped, "kept", len(w.entries), "maxBytes", s.maxBytes())
	}
	return w.entries, w.states, nil
}

// written is what one write attempt stored.
type written struct {
	entries []snapshot.Eviction
	states  NodeStates
	dropped int
}

func (s *ConfigMapStore) writeOnce(ctx context.Context, entries []snapshot.Eviction, states NodeStates) (written, error) {
	cms := s.Client.CoreV1().ConfigMaps(s.Namespace)
	cm, err := cms.Get(ctx, s.name(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return s.create(ctx, entries, states)
	}
	if err != nil {
		return written{}, err
	}
	if !s.known || cm.ResourceVersion != s.lastRV {
		entries, states = s.mergeStored(ctx, cm, entries, states)
	}
	w, data, err := s.encode(entries, states)
	if err != nil {
		return written{}, err
	}
	cm = cm.DeepCopy()
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.Data[HistoryDataKey] = string(data)
	updated, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return written{}, err
	}
	s.remember(updated.ResourceVersion)
	return w, nil
}

func (s *ConfigMapStore) create(ctx context.Context, entries []snapshot.Eviction, states NodeStates) (written, error) {
	w, data, err := s.encode(entries, states)
	if err != nil {
		return written{}, err
	}
	cm := &v1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: s.name(), Namespace: s.Namespace,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "usage-descheduler"}},
		Data: map[string]string{HistoryDataKey: string(data)},
	}
	created, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsForbidden(err) {
		// The manifests pre-create the ConfigMap and grant no create.
		return written{}, fmt.Errorf("it does not exist and creating it is forbidden: create it (the manifests in deploy/ do) "+
			"or grant create on configmaps: %w", err)
	}
	if err != nil {
		return written{}, err
	}
	s.remember(created.ResourceVersion)
	return w, nil
}

// mergeStored merges the ConfigMap's history into copies of entries and
// states. Stored data that cannot be decoded is logged and overwritten.
func (s *ConfigMapStore) mergeStored(ctx context.Context, cm *v1.ConfigMap, entries []snapshot.Eviction, states NodeStates) ([]snapshot.Eviction, NodeStates) {
	data, ok := cm.Data[HistoryDataKey]
	if !ok {
		return entries, states
	}
	stored, storedStates, err := DecodeHistory([]byte(data))
	if err != nil {
		klog.FromContext(ctx).Error(err, "Overwriting an undecodable history", "configMap", klog.KObj(cm), "key", HistoryDataKey)
		return entries, states
	}
	return mergeEvictions(slices.Clone(entries), stored), mergeStates(copyStates(states), storedStates)
}

func (s *ConfigMapStore) maxBytes() int {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultHistoryMaxBytes
}

func (s *ConfigMapStore) encode(entries []snapshot.Eviction, states NodeStates) (written, []byte, error) {
	data, dropped, err := EncodeHistory(entries, states, s.maxBytes())
	if err != nil {
		return written{}, nil, err
	}
	sorted := slices.Clone(entries)
	sortByTime(sorted)
	return written{entries: sorted[dropped:], states: states, dropped: dropped}, data, nil
}

// historyDoc is the persisted form. Times are Unix seconds (0: none).
type historyDoc struct {
	Version   int                                 `json:"version"`
	Evictions []json.RawMessage                   `json:"evictions"`
	Nodes     map[string]map[string]wireNodeState `json:"nodes,omitempty"`
}

type wireEviction struct {
	Time      int64  `json:"t"`
	Strategy  string `json:"s"`
	Namespace string `json:"ns"`
	Pod       string `json:"pod"`
	Node      string `json:"node"`
	OwnerKind string `json:"ok,omitempty"`
	OwnerName string `json:"on,omitempty"`
	OwnerUID  string `json:"ou,omitempty"`
	MilliCPU  int64  `json:"cpu,omitempty"`
	Memory    int64  `json:"mem,omitempty"`
	// FollowUp is absent for evictions that are not followed.
	FollowUp *wireFollowUp `json:"f,omitempty"`
}

type wireNodeState struct {
	Source      bool  `json:"src,omitempty"`
	HotSince    int64 `json:"hot,omitempty"`
	SourceSince int64 `json:"srcSince,omitempty"`
	Updated     int64 `json:"upd,omitempty"`
}

// EncodeHistory encodes a history as compact JSON of HistoryFormatVersion
// with second-precision times, evictions oldest first. When the result
// would exceed maxBytes, the oldest evictions are dropped until it fits;
// dropped says how many. Node states are never dropped: if they alone do
// not fit, it is an error. The same encoding serves history files
// (simulate --history).
func EncodeHistory(entries []snapshot.Eviction, states NodeStates, maxBytes int) (data []byte, dropped int, err error) {
	sorted := slices.Clone(entries)
	sortByTime(sorted)
	doc := historyDoc{Version: HistoryFormatVersion, Evictions: []json.RawMessage{}, Nodes: wireStates(states)}
	base, err := json.Marshal(doc)
	if err != nil {
		return nil, 0, fmt.Errorf("encoding the history: %w", err)
	}
	raws := make([]json.RawMessage, len(sorted))
	total := len(base) // with "[]" for the evictions
	for i, e := range sorted {
		if raws[i], err = json.Marshal(toWire(e)); err != nil {
			return nil, 0, fmt.Errorf("encoding the eviction of %s/%s: %w", e.Namespace, e.Pod, err)
		}
		total += len(raws[i])
	}
	// k kept evictions need k-1 separating commas.
	for dropped < len(raws) && total+len(raws)-dropped-1 > maxBytes {
		total -= len(raws[dropped])
		dropped++
	}
	doc.Evictions = raws[dropped:]
	if data, err = json.Marshal(doc); err != nil {
		return nil, 0, fmt.Errorf("encoding the history: %w", err)
	}
	if len(data) > maxBytes {
		return nil, 0, fmt.Errorf("the history's node states alone take %d bytes, more than the limit of %d", len(data), maxBytes)
	}
	return data, dropped, nil
}

// DecodeHistory decodes what EncodeHistory wrote.
func DecodeHistory(data []byte) ([]snapshot.Eviction, NodeStates, error) {
	var doc struct {
		Version   int                                 `json:"version"`
		Evictions []wireEviction                      `json:"evictions"`
		Nodes     map[string]map[string]wireNodeState `json:"nodes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("decoding the history: %w", err)
	}
	if doc.Version != HistoryFormatVersion {
		return nil, nil, fmt.Errorf("history format version %d is not supported (want %d)", doc.Version, HistoryFormatVersion)
	}
	entries := make([]snapshot.Eviction, 0, len(doc.Evictions))
	for _, w := range doc.Evictions {
		entries = append(entries, snapshot.Eviction{Time: fromUnix(w.Time), Strategy: w.Strategy, Namespace: w.Namespace,
			Pod: w.Pod, Node: w.Node, OwnerKind: w.OwnerKind, OwnerName: w.OwnerName, OwnerUID: types.UID(w.OwnerUID),
			MilliCPU: w.MilliCPU, Memory: w.Memory, FollowUp: fromWireFollowUp(w.FollowUp)})
	}
	sortByTime(entries)
	var states NodeStates
	for strategy, nodes := range doc.Nodes {
		kept := make(map[string]snapshot.NodeState, len(nodes))
		for node, w := range nodes {
			st := snapshot.NodeState{Source: w.Source, HotSince: fromUnix(w.HotSince),
				SourceSince: fromUnix(w.SourceSince), Updated: fromUnix(w.Updated)}
			if !st.Empty() {
				kept[node] = st
			}
		}
		if len(kept) > 0 {
			if states == nil {
				states = NodeStates{}
			}
			states[strategy] = kept
		}
	}
	return entries, states, nil
}

func toWire(e snapshot.Eviction) wireEviction {
	return wireEviction{Time: toUnix(e.Time), Strategy: e.Strategy, Namespace: e.Namespace, Pod: e.Pod, Node: e.Node,
		OwnerKind: e.OwnerKind, OwnerName: e.OwnerName, OwnerUID: string(e.OwnerUID), MilliCPU: e.MilliCPU, Memory: e.Memory,
		FollowUp: toWireFollowUp(e.FollowUp)}
}

func wireStates(states NodeStates) map[string]map[string]wireNodeState {
	out := map[string]map[string]wireNodeState{}
	for strategy, nodes := range states {
		for node, st := range nodes {
			if st.Empty() {
				continue
			}
			if out[strategy] == nil {
				out[strategy] = map[string]wireNodeState{}
			}
			out[strategy][node] = wireNodeState{Source: st.Source, HotSince: toUnix(st.HotSince),
				SourceSince: toUnix(st.SourceSince), Updated: toUnix(st.Updated)}
		}
	}
	return out
}

func toUnix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

func fromUnix(sec int64) time.Time {
	if sec == 0 {
		return time.Time{}
	}
	return time.Unix(sec, 0).UTC()
}
