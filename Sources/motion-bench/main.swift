import Foundation

// Benchmarks (not tests): `swift run -c release motion-bench [timer] [--seconds S]`.
let arguments = CommandLine.arguments.dropFirst()
let seconds = arguments.firstIndex(of: "--seconds").flatMap { arguments.index(after: $0) < arguments.endIndex ? Double(arguments[arguments.index(after: $0)]) : nil } ?? 5
let selected = Set(arguments.filter { !$0.hasPrefix("-") && Double($0) == nil })
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

if wants("timer") {
    print("== Timer: 100 Hz delivered-interval deviation, \(Int(seconds)) s, both at once")
    let (timer, reference) = benchmarkTimer(rate: 100, seconds: seconds)
    print("DispatchSourceTimer (sampler): \(timer)")
    print("clock_nanosleep reference:     \(reference)")
    print(String(format: "p99 ratio sampler/reference: %.2f (target ≤ 1.2)", timer.p99 / reference.p99))
}
