// Benchmarks: `swift run -c release motion-bench`. Each prints its figures next to a reference
// measured in the same run.
runFusionBenchmark()
