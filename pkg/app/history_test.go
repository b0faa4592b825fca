package app

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/pkg/simulator"
	"github.com/usage-descheduler/descheduler/pkg/snapshot"
)

// historyConfigMap is a history ConfigMap holding entries, as the live run
// writes it (no key at all when entries is nil).
func historyConfigMap(t *testing.T, namespace, name string, entries []snapshot.Eviction) *v1.ConfigMap {
	t.Helper()
	cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
	if entries != nil {
		data, _, err := descheduler.EncodeHistory(entries, nil, descheduler.DefaultHistoryMaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		cm.Data = map[string]string{descheduler.HistoryDataKey: string(data)}
	}
	return cm
}

// runHistory runs `descheduler history args...` at mixedHistoryNow against
// a fake cluster holding objs; the client is built only when asked for.
func runHistory(t *testing.T, objs []runtime.Object, args ...string) (string, error) {
	t.Helper()
	deps := historyDeps{
		now:    func() time.Time { return mixedHistoryNow },
		client: func(string) (kubernetes.Interface, error) { return fake.NewClientset(objs...), nil },
	}
	var out bytes.Buffer
	cmd := newHistoryCommandWith(deps)
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	// nil would make cobra read the test binary's own arguments.
	cmd.SetArgs(append([]string{}, args...))
	err := cmd.Execute()
	return out.String(), err
}

func TestHistoryGolden(t *testing.T) {
	mixed := []runtime.Object{historyConfigMap(t, "kube-system", descheduler.DefaultHistoryConfigMap, mixedHistory())}
	cases := []struct {
		name   string
		objs   []runtime.Object
		args   []string
		golden string
	}{
		// Every kind of row, oldest first; the summary counts 2 evictions
		// that are not followed (RemoveDuplicates, RemovePodsHavingTooManyRestarts).
		{"configmap table", mixed, nil, "history-configmap.txt"},
		{"configmap json", mixed, []string{"-o", "json"}, "history-configmap.json"},
		// Since 10:00 (12:00 - 2h), the open and unfollowed ones: dup-1,
		// api-7d9-e, api-7d9-f, crashy.
		{"since and outcome", mixed, []string{"--since", "2h", "--outcome", "following", "--outcome", "not_followed"},
			"history-filtered.txt"},
		// Another namespace and name; yaml has the JSON's field names.
		{"named configmap yaml", []runtime.Object{historyConfigMap(t, "ops", "pool-a-history", exampleHistory())},
			[]string{"--namespace", "ops", "--history-configmap", "pool-a-history", "-o", "yaml", "--outcome", "destination_hot"},
			"history-destination-hot.yaml"},
		{"example file", nil, []string{"--file", exampleHistoryFile}, "history-example.txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runHistory(t, tc.objs, tc.args...)
			if err != nil {
				t.Fatalf("history: %v\n%s", err, got)
			}
			golden(t, tc.golden, got)
		})
	}
}

func TestHistoryEmpty(t *testing.T) {
	cases := []struct {
		name string
		objs []runtime.Object
		args []string
		want string
	}{
		// Pre-created by the manifests, no cycle saved yet.
		{"no history key", []runtime.Object{historyConfigMap(t, "kube-system", descheduler.DefaultHistoryConfigMap, nil)}, nil,
			"no evictions in the history\n"},
		{"nothing since", []runtime.Object{historyConfigMap(t, "kube-system", descheduler.DefaultHistoryConfigMap, mixedHistory())},
			[]string{"--since", "1m"}, "no evictions match --since and --outcome (9 in the history)\n"},
		{"json", []runtime.Object{historyConfigMap(t, "kube-system", descheduler.DefaultHistoryConfigMap, []snapshot.Eviction{})},
			[]string{"-o", "json"}, `"evictions": []`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runHistory(t, tc.objs, tc.args...)
			if err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("history = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestHistoryErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version":1,"evictions":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := historyConfigMap(t, "kube-system", descheduler.DefaultHistoryConfigMap, nil)
	corrupt.Data = map[string]string{descheduler.HistoryDataKey: `{"version":7}`}
	cases := []struct {
		name string
		objs []runtime.Object
		args []string
		// want are substrings of the error.
		want []string
	}{
		{"missing configmap", nil, []string{"--namespace", "ops"},
			[]string{"history ConfigMap ops/descheduler-history not found", "--history-configmap"}},
		{"corrupt configmap", []runtime.Object{corrupt}, nil,
			[]string{"kube-system/descheduler-history", `"history.json"`, "format version 7"}},
		{"bad file", nil, []string{"--file", bad}, []string{"history file " + bad + ": decoding the history"}},
		{"missing file", nil, []string{"--file", filepath.Join(dir, "none.json")}, []string{"none.json"}},
		{"file and namespace", nil, []string{"--file", bad, "--namespace", "ops"},
			[]string{"--file and --namespace exclude each other"}},
		{"file and configmap at its default", nil, []string{"--file", bad, "--history-configmap", descheduler.DefaultHistoryConfigMap},
			[]string{"--file and --history-configmap exclude each other"}},
		{"file and kubeconfig", nil, []string{"--kubeconfig", "k", "--file", bad}, []string{"--file and --kubeconfig exclude each other"}},
		{"empty file", nil, []string{"--file", ""}, []string{"--file must name a file"}},
		{"unknown outcome", nil, []string{"--outcome", "relieved,helped"}, []string{`unknown --outcome "helped"`,
			"replacement_pending, destination_hot, unknown, relieved, partly_relieved, not_relieved, following, not_followed"}},
		{"negative since", nil, []string{"--since", "-1h"}, []string{"--since must not be negative"}},
		{"output", nil, []string{"-o", "wide"}, []string{"--output must be one of table, json, yaml"}},
		{"arguments", nil, []string{"kube-system"}, []string{"unknown command"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runHistory(t, tc.objs, tc.args...)
			if err == nil {
				t.Fatalf("history %q succeeded:\n%s", tc.args, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestHistoryRegistered: the root command has `history`, and a history
// file needs no cluster.
func TestHistoryRegistered(t *testing.T) {
	got, err := run(t, "history", "--file", exampleHistoryFile, "--outcome", "following")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "shop/checkout-4-0") || !strings.Contains(got, "1 eviction; outcomes: following 1") {
		t.Errorf("history --file --outcome following:\n%s", got)
	}
}

// TestHistoryFieldsMatchMoves: every field of a simulated move but its
// cycle number is a field of the same name in the history's JSON, so the
// two compare side by side.
func TestHistoryFieldsMatchMoves(t *testing.T) {
	fields := func(v any) map[string]reflect.Type {
		out := map[string]reflect.Type{}
		rt := reflect.TypeOf(v)
		for i := range rt.NumField() {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			out[name] = rt.Field(i).Type
		}
		return out
	}
	history := fields(HistoryEviction{})
	for name, typ := range fields(simulator.Move{}) {
		if name == "cycle" {
			continue
		}
		if history[name] != typ {
			t.Errorf("move field %q (%v): history has %v", name, typ, history[name])
		}
	}
}

// TestHistoryOutcomeCounts: the JSON counts add up to the listed
// evictions and have every key, zeros included.
func TestHistoryOutcomeCounts(t *testing.T) {
	out := buildHistory(mixedHistory(), historyFilter{})
	data, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Evictions []json.RawMessage `json:"evictions"`
		Outcomes  map[string]int    `json:"outcomes"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range doc.Outcomes {
		sum += n
	}
	// 9 evictions: one of each outcome but partly_relieved (5), 2 open,
	// 2 not followed.
	if sum != len(doc.Evictions) || sum != 9 || len(doc.Outcomes) != len(historyOutcomes()) {
		t.Errorf("outcomes %v for %d evictions", doc.Outcomes, len(doc.Evictions))
	}
	if n, ok := doc.Outcomes["partly_relieved"]; !ok || n != 0 {
		t.Errorf("partly_relieved = %d, %v; want an explicit 0", n, ok)
	}
}

func TestJoinWrapped(t *testing.T) {
	items := []string{"relieved 3", "destination_hot 1", "not followed 2"}
	for _, tc := range []struct {
		width int
		want  string
	}{
		// "n: relieved 3, destination_hot 1, not followed 2" is 48 characters.
		{48, "n: relieved 3, destination_hot 1, not followed 2"},
		// A break between items, never inside "not followed 2".
		{47, "n: relieved 3, destination_hot 1,\n  not followed 2"},
		// An item longer than the room left still gets a line of its own.
		{10, "n: relieved 3,\n  destination_hot 1,\n  not followed 2"},
	} {
		if got := joinWrapped("n: ", items, tc.width); got != tc.want {
			t.Errorf("width %d: %q, want %q", tc.width, got, tc.want)
		}
	}
	if got := joinWrapped("n: ", nil, 10); got != "n: " {
		t.Errorf("no items: %q", got)
	}
}
