package metricsserver

import (
	"reflect"
	"strings"
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

// trickySeeds are inputs for the decoder fuzz targets: escapes in keys and
// values, repeated keys, deeply nested unknown fields, whitespace
// everywhere, and truncated lists.
func trickySeeds() [][]byte {
	ts := `"2025-01-01T12:00:00Z"`
	good := `{"items":[{"metadata":{"name":"p","namespace":"n"},"timestamp":` + ts +
		`,"usage":{"cpu":"1","memory":"1"},"containers":[{"name":"c","usage":{"cpu":"250m","memory":"1Ki"}}]}]}`
	seeds := []string{
		// Escapes: keys spelled with \u, names with every escape, a
		// surrogate pair, an escaped quantity (which no Quantity accepts).
		`{"it\u0065ms":[{"metad\u0061ta":{"n\u0061me":"p\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t","namespace":"n\u0031"},"timestamp":` + ts +
			`,"window":"1\u0035s","containers":[{"n\u0061me":"c\\","us\u0061ge":{"c\u0070u":"1","memory":"1"}}]}]}`,
		`{"items":[{"metadata":{"name":"p"},"timestamp":` + ts + `,"containers":[{"name":"c","usage":{"cpu":"1","memory":"1\u004bi"}}]}]}`,
		// Lone surrogates and bytes that are not UTF-8.
		"{\"items\":[{\"metadata\":{\"name\":\"\\ud800x\\udc00\xff\"},\"timestamp\":" + ts + ",\"usage\":{\"cpu\":\"1\",\"memory\":\"1\"}}]}",
		// Repeated keys at every level, with nulls in between.
		`{"items":[{"metadata":{"name":"a","name":"b","namespace":"x","namespace":null},"metadata":null,"timestamp":"2025-01-01T12:00:05Z","timestamp":null,"timestamp":` + ts +
			`,"usage":{"cpu":"1"},"usage":{"memory":"2"},"containers":[{"name":"c","usage":{"cpu":"1"}},{"name":"d","usage":{"cpu":"1","memory":"1"}}],` +
			`"containers":[{"usage":{"memory":"2","cpu":"3"}}],"containers":[null,{}]}]}`,
		`{"items":[{"metadata":{"name":"a"},"timestamp":` + ts + `,"containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}],"containers":[],"containers":[{"usage":{"cpu":"1"}}]}]}`,
		// Deeply nested unknown fields and every kind of scalar.
		`{"x":[[[[{"a":[{"b":{}}]}]]]],"items":[{"u":{"v":[1,-2.5e+3,0.5E-2,true,false,null,"s\"]}",{"w":[]}]},"metadata":{"labels":{"a":"b"},"x":{"a":{"b":[[]]}},"name":"p"},` +
			`"timestamp":` + ts + `,"containers":[{"extra":{"y":[{}]},"name":"c","usage":{"cpu":1e3,"memory":-0}}]}]}`,
		`{"deep":` + strings.Repeat(`[{"a":`, 200) + `0` + strings.Repeat(`}]`, 200) + `,"items":[]}`,
		// Whitespace everywhere.
		" \t\n\r{ \"items\" \n: [ { \"metadata\" : { \"name\" : \"p\" , \"namespace\" : \"n\" } , \"timestamp\" : " + ts +
			" , \"window\" : \"15s\" , \"usage\" : { \"cpu\" : 1 , \"memory\" : \"1\" } , \"containers\" : [ { \"name\" : \"c\" , " +
			"\"usage\" : { \"cpu\" : 1 , \"memory\" : \"1\" } } ] } ] } \n",
		good,
		// Malformed JSON in an unknown field.
		`{"items":[{"x":01,"metadata":{"name":"p"}}]}`,
		`{"items":[{"x":"a\x","metadata":{"name":"p"}}]}`,
		`{"items":[{"x":[1,],"metadata":{"name":"p"}}]}`,
		`{"items":[{"x":{"a" 1},"metadata":{"name":"p"}}]}`,
		`{"items":[{"x":nul,"metadata":{"name":"p"}}]}`,
	}
	// Truncated lists.
	for _, cut := range []int{1, 10, 40, 75, 120, len(good) - 1} {
		seeds = append(seeds, good[:cut])
	}
	out := make([][]byte, 0, len(seeds)+1)
	for _, s := range seeds {
		out = append(out, []byte(s))
	}
	return append(out, realisticPods(3)[:500])
}

// TestStreamDepthLimit: like encoding/json, the decoders accept 10,000
// nested arrays and objects (the list object counts) and reject 10,001.
func TestStreamDepthLimit(t *testing.T) {
	// The list object, items, the item and x's value hold 4 levels; the
	// rest are arrays around x's innermost value.
	nested := func(depth int) []byte {
		inner := depth - 4
		return []byte(`{"items":[{"metadata":{"name":"a"},"x":{"y":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}}]}`)
	}
	for depth, wantErr := range map[int]bool{maxDepth: false, maxDepth + 1: true} {
		data := nested(depth)
		if _, _, err := typedPods(data); (err != nil) != wantErr {
			t.Fatalf("depth %d: typed decode error %v, want an error: %t; the case is wrong", depth, err, wantErr)
		}
		if _, _, err := streamPods(data); (err != nil) != wantErr {
			t.Errorf("depth %d: stream decode error %v, want an error: %t", depth, err, wantErr)
		}
		if _, _, err := streamNodes(data); (err != nil) != wantErr {
			t.Errorf("depth %d: node stream decode error %v, want an error: %t", depth, err, wantErr)
		}
	}
}

// TestStreamRepeatedContainers: a repeated containers key decodes each
// element into the element an earlier array of the item left there, as
// encoding/json does; null and [] start afresh.
func TestStreamRepeatedContainers(t *testing.T) {
	ts := `"timestamp":"2025-01-01T12:00:00Z"`
	a := `{"name":"a","usage":{"cpu":"1","memory":"1"}}`
	b := `{"name":"b","usage":{"cpu":"2","memory":"2"}}`
	c := `{"name":"c","usage":{"cpu":"4","memory":"4"}}`
	data := []byte(`{"items":[
{"metadata":{"name":"merge"},` + ts + `,"containers":[` + a + `,` + b + `,` + c + `],"containers":[{"usage":{"cpu":"8"}}],"containers":[{},{"name":"x"}]},
{"metadata":{"name":"null"},` + ts + `,"containers":[` + a + `,` + b + `],"containers":null,"containers":[{"usage":{"memory":"8"}}]},
{"metadata":{"name":"empty"},` + ts + `,"containers":[` + a + `],"containers":[],"containers":[{"usage":{"cpu":"8","memory":"8"}}]}]}`)
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
	// merge: the third array's two elements land on a (cpu 8 since the
	// second array) and b: 8+2 cores, 1+2 bytes. null lacks cpu; empty
	// has only the last array's 8 cores and 8 bytes.
	if len(got) != 2 || got[0].Pod.Name != "merge" || got[0].Sample.MilliCPU != 10_000 || got[0].Sample.Memory != 3 ||
		got[1].Pod.Name != "empty" || got[1].Sample.MilliCPU != 8000 || got[1].Sample.Memory != 8 {
		t.Errorf("samples %+v, want merge (10000m, 3) and empty (8000m, 8)", got)
	}
	if !strings.Contains(gotProblems, "PodMetrics /null: container : usage lacks cpu or memory") {
		t.Errorf("problems %q lack pod null's missing cpu", gotProblems)
	}
}
