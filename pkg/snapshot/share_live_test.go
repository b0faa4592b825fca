package snapshot

import (
	"strconv"
	"testing"
)

// TestAdmitRenews: a full index takes no more entries unless renew, which
// empties it first.
func TestAdmitRenews(t *testing.T) {
	index := map[string]int{}
	for i := range maxShared {
		index[strconv.Itoa(i)] = i
	}
	if admit(false, index) || len(index) != maxShared {
		t.Fatalf("admit(false) on a full index: len %d, want %d and false", len(index), maxShared)
	}
	if !admit(true, index) || len(index) != 0 {
		t.Fatalf("admit(true) on a full index: len %d, want 0 and true", len(index))
	}
}
