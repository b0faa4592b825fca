// Package descheduler runs descheduling cycles. One cycle takes a snapshot,
// runs every profile's Deschedule strategies and then every profile's
// Balance strategies (the upstream order); each strategy plans on the
// working snapshot, its candidates go through the cycle's limits and the
// executor, and every successful eviction is removed from the working
// snapshot so later strategies see it gone. When an eviction fails (PDB,
// API error) the strategy is asked to plan again, with the failed pod
// filtered out, so it can pick another pod; at most MaxReplans times.
package descheduler
