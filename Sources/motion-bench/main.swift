import Foundation

// Benchmarks (not tests), each next to a reference measured in the same run:
//   swift run -c release motion-bench [fusion] [timer] [sampler] [--seconds S]
// With no name, all of them.
let arguments = CommandLine.arguments.dropFirst()
let seconds = arguments.firstIndex(of: "--seconds").flatMap { arguments.index(after: $0) < arguments.endIndex ? Double(arguments[arguments.index(after: $0)]) : nil } ?? 5
let selected = Set(arguments.filter { !$0.hasPrefix("-") && Double($0) == nil })
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

if wants("fusion") {
    runFusionBenchmark()
}

if wants("timer") {
    print("== Timer: 100 Hz delivered-interval deviation, \(Int(seconds)) s, both at once")
    let (timer, reference) = benchmarkTimer(rate: 100, seconds: seconds)
    print("DispatchSourceTimer (sampler): \(timer)")
    print("clock_nanosleep reference:     \(reference)")
    print(String(format: "p99 ratio sampler/reference: %.2f (target ≤ 1.2)", timer.p99 / reference.p99))
}

if wants("sampler") {
    print("== Sampler: device motion at 100 Hz on the simulated board, \(Int(seconds)) s of wall time")
    do {
        print(try benchmarkSampler(seconds: seconds))
        print(String(format: "the same pipeline in virtual time (no waiting): %.1f µs per sample", 1e6 * (try benchmarkSamplerVirtual(samples: 20_000))))
    } catch {
        print("sampler benchmark failed: \(error)")
    }
}
