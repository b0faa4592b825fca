package app

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/usage-descheduler/descheduler/pkg/descheduler"
	"github.com/usage-descheduler/descheduler/test/builders"
)

func TestUntaintOptionsValidate(t *testing.T) {
	cases := []struct {
		name    string
		opts    UntaintOptions
		wantErr string
	}{
		{name: "default instance", opts: UntaintOptions{}},
		{name: "all", opts: UntaintOptions{All: true}},
		{name: "all and a name", opts: UntaintOptions{All: true, InstanceName: "ns/a"},
			wantErr: "--all and --instance-name exclude each other"},
		{name: "bad name", opts: UntaintOptions{InstanceName: "/a"}, wantErr: `--instance-name: instance name "/a" must be`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate()
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Validate() = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// untaintOptions parses untaint's flags from args.
func untaintOptions(t *testing.T, args ...string) *UntaintOptions {
	t.Helper()
	o := &UntaintOptions{}
	fs := pflag.NewFlagSet("untaint", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestRunUntaintOutput(t *testing.T) {
	// Not read: the default instance follows the Lease flags' defaults, as
	// the live run's does.
	t.Setenv("POD_NAMESPACE", "ops")
	const key = descheduler.DefaultSoftTaintKey
	node := func(name, owners string) *v1.Node {
		return builders.MakeNode(name).Taint(key, "", v1.TaintEffectPreferNoSchedule).
			Annotation(descheduler.SoftTaintOwnersAnnotation, owners).Obj()
	}
	mine := `{"kube-system/descheduler":{"` + key + `":""}}`
	cases := []struct {
		name string
		args []string
		want string
	}{{
		// The default instance is kube-system/descheduler: n1 only.
		name: "default instance",
		want: "node n1: removed " + key + " (owner kube-system/descheduler)\n" +
			"removed 1 soft taints of instance kube-system/descheduler from 1 nodes\n",
	}, {
		name: "all, dry run",
		args: []string{"--all", "--dry-run"},
		want: "node n1: would remove " + key + " (owner kube-system/descheduler)\n" +
			"node n2: would remove " + key + " (owner ops/pool-b)\n" +
			"would remove 2 soft taints of every instance from 2 nodes\n",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(node("n1", mine), node("n2", `{"ops/pool-b":{"`+key+`":""}}`))
			var out bytes.Buffer
			if err := runUntaint(context.Background(), client, untaintOptions(t, tc.args...), &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != tc.want {
				t.Errorf("output\n%s\nwant\n%s", out.String(), tc.want)
			}
		})
	}
}

func TestRunOptionsInstance(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "ops")
	cases := []struct {
		name string
		opts RunOptions
		want string
	}{
		{"flag", RunOptions{InstanceName: "pool-a"}, "pool-a"},
		{"lease namespace and name", RunOptions{LeaderElection: LeaderElectionOptions{ResourceName: "pool-b",
			ResourceNamespace: "kube-system"}}, "kube-system/pool-b"},
		{"pod namespace", RunOptions{LeaderElection: LeaderElectionOptions{ResourceName: DefaultLeaseName}}, "ops/descheduler"},
	}
	for _, tc := range cases {
		if got := tc.opts.Instance(); got != tc.want {
			t.Errorf("%s: Instance() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
