package metricsserver

import (
	"reflect"
	"testing"
)

// TestStreamNullKeepsEarlierString: a null after a string value of the
// same key leaves the string as it was (encoding/json ignores null for a
// string field), so the pod keeps the name "a", the namespace "n" and the
// container name "c" of the earlier values, as in the typed decode.
func TestStreamNullKeepsEarlierString(t *testing.T) {
	data := []byte(`{"items":[{"metadata":{"name":"a","namespace":"n","name":null,"namespace":null},
"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","name":null,"usage":{"cpu":"-1","memory":"1"}}]},
{"metadata":{"name":"b","namespace":"n"},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}]},
{"metadata":{"name":"b2","namespace":"n","name":null},"timestamp":"2025-01-01T12:00:00Z","containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}]}]}`)
	want, wantProblems, err := typedPods(data)
	if err != nil {
		t.Fatal(err)
	}
	got, gotProblems, err := streamPods(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || gotProblems != wantProblems {
		t.Errorf("got %v %q, want %v %q", got, gotProblems, want, wantProblems)
	}
	// b and b2 become samples; a is skipped for its negative cpu under its
	// own name and namespace.
	if len(got) != 2 || got[1].Pod.Name != "b2" {
		t.Errorf("samples %v, want b and b2", got)
	}
}

// TestStreamInvalidUTF8: bytes that are not UTF-8 in a name become U+FFFD
// as in the typed decode, with or without escapes in the same string.
func TestStreamInvalidUTF8(t *testing.T) {
	data := []byte("{\"items\":[{\"metadata\":{\"name\":\"a\xff\",\"namespace\":\"n\xc3\"},\"timestamp\":\"2025-01-01T12:00:00Z\"," +
		"\"containers\":[{\"name\":\"c\",\"usage\":{\"cpu\":\"1\",\"memory\":\"1\"}}]}," +
		"{\"metadata\":{\"name\":\"b\\t\xff\",\"namespace\":\"n\"},\"timestamp\":\"2025-01-01T12:00:00Z\"," +
		"\"containers\":[{\"name\":\"c\",\"usage\":{\"cpu\":\"1\",\"memory\":\"1\"}}]}]}")
	want, wantProblems, err := typedPods(data)
	if err != nil {
		t.Fatal(err)
	}
	got, gotProblems, err := streamPods(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || gotProblems != wantProblems {
		t.Errorf("got %+v %q, want %+v %q", got, gotProblems, want, wantProblems)
	}
	if len(got) != 2 || got[0].Pod.Name != "a\uFFFD" || got[0].Pod.Namespace != "n\uFFFD" || got[1].Pod.Name != "b\t\uFFFD" {
		t.Errorf("samples %+v, want a\\uFFFD in n\\uFFFD and b\\t\\uFFFD", got)
	}
}
