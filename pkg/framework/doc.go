// Package framework defines the contracts between the descheduling cycle,
// the strategies and the evictor:
//
//   - a Strategy only plans: it reads an immutable snapshot.Snapshot and an
//     Evictor view and returns ordered Candidates; it never holds a client;
//   - the Evictor view answers the Filter and PreEvictionFilter extension
//     points and exposes the cycle's remaining eviction Budget;
//   - the Registry maps plugin names to their argument types and factories.
package framework
