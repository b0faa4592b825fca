package scenario

import (
	"math/rand/v2"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

const day = 24 * time.Hour

// Random streams: each concern draws from its own generator seeded with
// (Params.Seed, stream), so that a change in one concern does not reshuffle
// the others.
const (
	streamNodes uint64 = iota + 0x5ce0a110
	streamWorkloads
	streamPlacement
	streamSituations
	streamUsage
	streamPods
	streamRealistic
)

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// safeAlphabet is the alphabet of generated name suffixes (as
// k8s.io/apimachinery's rand.SafeEncodeString: no vowels, no 0, 1, 3).
const safeAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// randomSuffix returns n random characters of safeAlphabet, like the
// pod-template-hash of a ReplicaSet.
func randomSuffix(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = safeAlphabet[rng.IntN(len(safeAlphabet))]
	}
	return string(b)
}

// podSuffixSpace is the number of five-character suffixes.
const podSuffixSpace = 27 * 27 * 27 * 27 * 27

// podSuffix returns the five-character name suffix of the ordinal-th pod of
// a workload: (ordinal·7919 + offset) mod 27⁵ written in safeAlphabet. As
// 7919 is prime to 27⁵, distinct ordinals below 27⁵ get distinct suffixes,
// which random draws would not guarantee.
func podSuffix(offset uint32, ordinal int) [5]byte {
	v := (uint64(ordinal)*7919 + uint64(offset)) % podSuffixSpace
	var b [5]byte
	for i := range b {
		b[4-i] = safeAlphabet[v%27]
		v /= 27
	}
	return b
}

// newUID returns a random version 4 UUID.
func newUID(rng *rand.Rand) types.UID {
	var b [36]byte
	return types.UID(appendUID(b[:0], rng))
}

// appendUID appends a random version 4 UUID to dst.
func appendUID(dst []byte, rng *rand.Rand) []byte {
	const hex = "0123456789abcdef"
	hi, lo := rng.Uint64(), rng.Uint64()
	hi = hi&^(0xf<<12) | 4<<12   // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // variant 10
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			dst = append(dst, '-')
		}
		word, shift := hi, uint(60-4*i)
		if i >= 16 {
			word, shift = lo, uint(60-4*(i-16))
		}
		dst = append(dst, hex[word>>shift&0xf])
	}
	return dst
}

// arena packs many short strings into one allocation: append each string's
// bytes, end it with done, then take them all with strings.
type arena struct {
	buf  []byte
	ends []int
}

func newArena(count, bytesEach int) *arena {
	return &arena{buf: make([]byte, 0, count*bytesEach), ends: make([]int, 0, count)}
}

func (a *arena) done() { a.ends = append(a.ends, len(a.buf)) }

// strings returns the strings, substrings of one string.
func (a *arena) strings() []string {
	all := string(a.buf)
	out := make([]string, len(a.ends))
	start := 0
	for i, end := range a.ends {
		out[i] = all[start:end]
		start = end
	}
	return out
}

// seconds returns a random whole number of seconds in [lo, hi).
func seconds(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	n := int64((hi - lo) / time.Second)
	if n <= 0 {
		return lo
	}
	return lo + time.Duration(rng.Int64N(n))*time.Second
}

// uniform returns a random float in [lo, hi).
func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }
