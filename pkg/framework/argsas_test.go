package framework

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

type ptrArgs struct{ N int }

func (*ptrArgs) Default()                             {}
func (*ptrArgs) Validate(*field.Path) field.ErrorList { return nil }

func TestArgsAs(t *testing.T) {
	want := &ptrArgs{N: 3}
	got, err := ArgsAs[ptrArgs]("P", want)
	if err != nil || got != want {
		t.Fatalf("ArgsAs(own args) = %v, %v; want the same pointer", got, err)
	}
	for name, args := range map[string]Args{
		"another plugin's args": noArgs{},
		"nil":                   nil,
		"typed nil pointer":     (*ptrArgs)(nil),
	} {
		if _, err := ArgsAs[ptrArgs]("P", args); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	_, err = ArgsAs[ptrArgs]("P", noArgs{})
	if msg := "P: want args of type *framework.ptrArgs, got framework.noArgs"; err == nil || err.Error() != msg {
		t.Errorf("error = %v, want %q", err, msg)
	}
}
