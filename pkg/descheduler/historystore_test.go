package descheduler

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/usage-descheduler/descheduler/pkg/evictor"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
	"github.com/usage-descheduler/descheduler/test/builders"
)

const histNS = "kube-system"

var cmResource = schema.GroupResource{Resource: "configmaps"}

func historyCM(rv string, data map[string]string) *v1.ConfigMap {
	return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: histNS, Name: DefaultHistoryConfigMap, ResourceVersion: rv}, Data: data}
}

func encoded(t *testing.T, entries []snapshot.Eviction, states NodeStates) string {
	t.Helper()
	data, dropped, err := EncodeHistory(entries, states, DefaultHistoryMaxBytes)
	if err != nil || dropped != 0 {
		t.Fatalf("EncodeHistory: dropped %d, %v", dropped, err)
	}
	return string(data)
}

func storedHistory(t *testing.T, client *fake.Clientset) ([]snapshot.Eviction, NodeStates) {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps(histNS).Get(context.Background(), DefaultHistoryConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	entries, states, err := DecodeHistory([]byte(cm.Data[HistoryDataKey]))
	if err != nil {
		t.Fatal(err)
	}
	return entries, states
}

func sampleEntries() []snapshot.Eviction {
	return []snapshot.Eviction{
		{Time: histAt(0), Namespace: "shop", Pod: "web-1", OwnerKind: "ReplicaSet", OwnerName: "web", OwnerUID: "uid-rs-web",
			Node: "n1", Strategy: histLNU, MilliCPU: 380, Memory: 1 << 20},
		{Time: histAt(2), Namespace: "shop", Pod: "bare", Node: "n2", Strategy: histLNU},
	}
}

func sampleStates() NodeStates {
	return NodeStates{histLNU: {"n1": {Source: true, HotSince: histAt(-15), SourceSince: histAt(-5), Updated: histAt(2)}}}
}

func TestConfigMapStoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	store := &ConfigMapStore{Client: client, Namespace: histNS}
	if err := store.Save(ctx, sampleEntries(), sampleStates()); err != nil {
		t.Fatal(err)
	}
	cm, err := client.CoreV1().ConfigMaps(histNS).Get(ctx, DefaultHistoryConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("ConfigMap not created: %v", err)
	}
	if cm.Labels["app.kubernetes.io/managed-by"] != "usage-descheduler" || !strings.Contains(cm.Data[HistoryDataKey], `"version":1`) {
		t.Errorf("created ConfigMap %+v", cm)
	}
	entries, states, err := (&ConfigMapStore{Client: client, Namespace: histNS}).Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(entries, sampleEntries()) || !reflect.DeepEqual(states, sampleStates()) {
		t.Errorf("round trip\n got %+v %+v\nwant %+v %+v", entries, states, sampleEntries(), sampleStates())
	}
}

func TestConfigMapStoreLoad(t *testing.T) {
	cases := []struct {
		name    string
		objs    []runtime.Object
		wantErr string // "": no error
		wantLen int
	}{
		{name: "absent ConfigMap is an empty history"},
		{name: "absent key is an empty history", objs: []runtime.Object{historyCM("1", map[string]string{"other": "x"})}},
		{name: "stored history", wantLen: 2,
			objs: []runtime.Object{historyCM("1", map[string]string{HistoryDataKey: encoded(t, sampleEntries(), nil)})}},
		{name: "corrupt JSON names the ConfigMap and key", wantErr: `ConfigMap kube-system/descheduler-history key "history.json": decoding the history`,
			objs: []runtime.Object{historyCM("1", map[string]string{HistoryDataKey: `{"version":1,"evictions":[{`})}},
		{name: "unknown format version", wantErr: "history format version 7 is not supported (want 1)",
			objs: []runtime.Object{historyCM("1", map[string]string{HistoryDataKey: `{"version":7,"evictions":[]}`})}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := &ConfigMapStore{Client: fake.NewClientset(tc.objs...), Namespace: histNS}
			entries, _, err := store.Load(context.Background())
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
			if len(entries) != tc.wantLen {
				t.Errorf("%d entries, want %d", len(entries), tc.wantLen)
			}
		})
	}
}

func TestConfigMapStoreConflictMerges(t *testing.T) {
	ctx := context.Background()
	ours := sampleEntries()
	foreign := snapshot.Eviction{Time: histAt(1), Namespace: "shop", Pod: "db-0", OwnerKind: "StatefulSet", OwnerName: "db",
		OwnerUID: "uid-sts-db", Node: "n3", Strategy: histLNU}
	client := fake.NewClientset(historyCM("1", map[string]string{HistoryDataKey: encoded(t, nil, nil), "other": "kept"}))
	// The first update conflicts: meanwhile another writer stored db-0 and
	// a newer state of n1 (updated t+3 > our t+2) at resourceVersion 2.
	conflicts := 0
	client.PrependReactor("update", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			return false, nil, nil
		}
		conflicts++
		other := historyCM("2", map[string]string{HistoryDataKey: encoded(t, []snapshot.Eviction{foreign},
			NodeStates{histLNU: {"n1": {HotSince: histAt(-1), Updated: histAt(3)}}}), "other": "kept"})
		if err := client.Tracker().Update(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, other, histNS); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewConflict(cmResource, DefaultHistoryConfigMap, fmt.Errorf("resourceVersion changed"))
	})
	store := &ConfigMapStore{Client: client, Namespace: histNS}
	if _, _, err := store.Load(ctx); err != nil {
		t.Fatal(err)
	}
	written, writtenStates, err := store.SaveMerged(ctx, ours, sampleStates())
	if err != nil {
		t.Fatal(err)
	}
	wantStates := NodeStates{histLNU: {"n1": {HotSince: histAt(-1), Updated: histAt(3)}}}
	entries, states := storedHistory(t, client)
	// web-1 t+0, db-0 t+1 (theirs), bare t+2.
	if got, want := podNames(entries), []string{"web-1", "db-0", "bare"}; !reflect.DeepEqual(got, want) || conflicts != 1 {
		t.Errorf("stored %v after %d conflicts, want %v after 1", got, conflicts, want)
	}
	if !reflect.DeepEqual(states, wantStates) || !reflect.DeepEqual(writtenStates, wantStates) {
		t.Errorf("states stored %+v, returned %+v; want %+v (newest wins)", states, writtenStates, wantStates)
	}
	if !reflect.DeepEqual(written, entries) {
		t.Errorf("returned %v, stored %v", podNames(written), podNames(entries))
	}
	cm, _ := client.CoreV1().ConfigMaps(histNS).Get(ctx, DefaultHistoryConfigMap, metav1.GetOptions{})
	if cm.Data["other"] != "kept" {
		t.Errorf("other key lost: %v", cm.Data)
	}

	// Nobody else wrote since: a save overwrites (the State pruned db-0).
	if err := store.Save(ctx, ours[:1], nil); err != nil {
		t.Fatal(err)
	}
	if entries, states = storedHistory(t, client); !reflect.DeepEqual(podNames(entries), []string{"web-1"}) || states != nil {
		t.Errorf("overwrite stored %v %v, want [web-1] and no states", podNames(entries), states)
	}
}

func TestConfigMapStoreCreateRace(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	foreign := snapshot.Eviction{Time: histAt(1), Namespace: "shop", Pod: "db-0", Node: "n3", Strategy: histLNU}
	// Another writer creates the ConfigMap between our Get and Create.
	client.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		other := historyCM("5", map[string]string{HistoryDataKey: encoded(t, []snapshot.Eviction{foreign}, nil)})
		if err := client.Tracker().Add(other); err != nil {
			t.Fatal(err)
		}
		return true, nil, apierrors.NewAlreadyExists(cmResource, DefaultHistoryConfigMap)
	})
	store := &ConfigMapStore{Client: client, Namespace: histNS}
	if err := store.Save(ctx, sampleEntries(), nil); err != nil {
		t.Fatal(err)
	}
	var verbs []string
	for _, a := range client.Actions() {
		verbs = append(verbs, a.GetVerb())
	}
	if want := []string{"get", "create", "get", "update"}; !reflect.DeepEqual(verbs, want) {
		t.Errorf("API calls %v, want %v", verbs, want)
	}
	entries, _ := storedHistory(t, client)
	if got, want := podNames(entries), []string{"web-1", "db-0", "bare"}; !reflect.DeepEqual(got, want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}

func TestConfigMapStoreUpdateOverwritesCorruptData(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(historyCM("1", map[string]string{HistoryDataKey: "not json"}))
	store := &ConfigMapStore{Client: client, Namespace: histNS}
	if _, _, err := store.Load(ctx); err == nil {
		t.Fatal("Load of corrupt data succeeded")
	}
	if err := store.Save(ctx, sampleEntries(), nil); err != nil {
		t.Fatal(err)
	}
	if entries, _ := storedHistory(t, client); len(entries) != 2 {
		t.Errorf("stored %v, want the 2 saved entries", podNames(entries))
	}
}

func TestEncodeHistorySizeBound(t *testing.T) {
	// Five evictions p0..p4 of equal size. Encoded:
	//   document without evictions {"version":1,"evictions":[]}    = 28 bytes
	//   each {"t":1769940000,"s":"L","ns":"n","pod":"pN","node":"x"} = 55 bytes
	// k kept evictions take 28 + 55k + (k-1) bytes: k=5 → 307, k=3 → 195, k=4 → 251.
	var entries []snapshot.Eviction
	for i := range 5 {
		entries = append(entries, snapshot.Eviction{Time: histAt(i), Strategy: "L", Namespace: "n", Pod: fmt.Sprintf("p%d", i), Node: "x"})
	}
	cases := []struct {
		name        string
		maxBytes    int
		states      NodeStates
		wantDropped int
		wantLen     int
		wantErr     bool
	}{
		{name: "everything fits exactly", maxBytes: 307, wantDropped: 0, wantLen: 307},
		{name: "one byte short drops the oldest", maxBytes: 306, wantDropped: 1, wantLen: 251},
		{name: "room for three", maxBytes: 250, wantDropped: 2, wantLen: 195},
		{name: "room for none", maxBytes: 40, wantDropped: 5, wantLen: 28},
		// ,"nodes":{"L":{"n1":{"src":true}}} adds 35 bytes: 63 > 60.
		{name: "node states alone too big", maxBytes: 60, states: NodeStates{"L": {"n1": {Source: true}}}, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data, dropped, err := EncodeHistory(entries, tc.states, tc.maxBytes)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error; encoded %d bytes", len(data))
				}
				return
			}
			if err != nil || dropped != tc.wantDropped || len(data) != tc.wantLen {
				t.Fatalf("dropped %d, %d bytes, err %v; want %d, %d bytes", dropped, len(data), err, tc.wantDropped, tc.wantLen)
			}
			got, _, err := DecodeHistory(data)
			if err != nil {
				t.Fatal(err)
			}
			if want := podNames(entries[tc.wantDropped:]); !reflect.DeepEqual(podNames(got), want) {
				t.Errorf("kept %v, want the newest %v", podNames(got), want)
			}
		})
	}
}

func TestConfigMapStoreReportsDroppedThroughSaveMerged(t *testing.T) {
	// web-1 encodes to 150 bytes, bare to 78: both take 28 + 150 + 1 + 78
	// = 257 bytes > 200; bare alone 28 + 78 = 106 fits.
	client := fake.NewClientset()
	store := &ConfigMapStore{Client: client, Namespace: histNS, MaxBytes: 200}
	written, _, err := store.SaveMerged(context.Background(), sampleEntries(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := podNames(written); !reflect.DeepEqual(got, []string{"bare"}) {
		t.Errorf("written %v, want [bare]", got)
	}
}

func TestStatePersistRestore(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	rep := &Report{Records: []Record{
		histRecord(builders.MakePod("shop", "web-1").Node("n1").Req("500m", "1Gi").OwnedBy("ReplicaSet", "web").Obj(), evictor.ResultSuccess),
	}}
	leader := &State{}
	leader.RecordCycle(histAt(0), rep, NodeStates{histLNU: {"n1": {Source: true, HotSince: histAt(-12), SourceSince: histAt(-2)}}})
	if err := leader.Persist(ctx, &ConfigMapStore{Client: client, Namespace: histNS}); err != nil {
		t.Fatal(err)
	}
	next := &State{}
	if err := next.Restore(ctx, &ConfigMapStore{Client: client, Namespace: histNS}); err != nil {
		t.Fatal(err)
	}
	h := next.History(histAt(10))
	last, ok := h.LastNodeEviction(histLNU, "n1")
	if !ok || !last.Equal(histAt(0)) {
		t.Errorf("LastNodeEviction = %v, %v; want %v", last, ok, histAt(0))
	}
	// The owner lost one pod at t+0, within a 15m workload cooldown at t+10.
	if n := h.OwnerEvictions(histLNU, "uid-ReplicaSet-web", histAt(-5)); n != 1 {
		t.Errorf("OwnerEvictions = %d, want 1", n)
	}
	if st, ok := h.NodeState(histLNU, "n1"); !ok || !st.Source || !st.HotSince.Equal(histAt(-12)) || !st.Updated.Equal(histAt(0)) {
		t.Errorf("NodeState = %+v, %v", st, ok)
	}
}
