#pragma once
// The FMA peak kernel: many independent chains x ← x·m + a, enough to hide the FMA latency on
// every port, compiled for the widest vector unit the CPU has (chosen at run time).

namespace roofline::calibrate {

// Runs `iterations` steps of every chain; each chain converges to a / (1 − m) = 1, which the
// caller checks. Returns one chain's final value (all chains end equal).
float fma_chains(long iterations);
// FLOPs done by one fma_chains call: 2 per FMA.
double fma_chains_flops(long iterations);

}  // namespace roofline::calibrate
