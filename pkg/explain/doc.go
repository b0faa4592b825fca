// Package explain describes a cycle for people: per considered node its
// classes, requested and used percentages, usage freshness, hysteresis state
// and soft-taint action, and per attempted eviction the numbers that decided
// it. `simulate` prints it for one cycle and `simulate --cycles` for each
// simulated cycle, so both report nodes in the same JSON shape (documented
// in docs/simulator.md; fields are only ever added, never renamed).
//
// Everything here reads a snapshot and the policy's strategies; like the
// strategies it is pure: it never talks to a cluster.
package explain
