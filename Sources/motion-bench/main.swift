import Foundation

// Benchmarks (not tests): `swift run -c release motion-bench [timer] [world] [driver] [--seconds S] [--hours H]`.
//   timer:  100 Hz timer deviation against clock_nanosleep (--seconds, default 5).
//   world:  24 h of 100 Hz ground truth and error-model states in virtual time (--hours, default 24).
//   driver: the same span read through emulated chips, the simulated bus and the drivers.
let arguments = CommandLine.arguments.dropFirst()
let seconds = arguments.firstIndex(of: "--seconds").flatMap { arguments.index(after: $0) < arguments.endIndex ? Double(arguments[arguments.index(after: $0)]) : nil } ?? 5
let selected = Set(arguments.filter { !$0.hasPrefix("-") && Double($0) == nil })
let hours = arguments.firstIndex(of: "--hours").flatMap { arguments.index(after: $0) < arguments.endIndex ? Double(arguments[arguments.index(after: $0)]) : nil } ?? 24
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

if wants("timer") {
    print("== Timer: 100 Hz delivered-interval deviation, \(Int(seconds)) s, both at once")
    let (timer, reference) = benchmarkTimer(rate: 100, seconds: seconds)
    print("DispatchSourceTimer (sampler): \(timer)")
    print("clock_nanosleep reference:     \(reference)")
    print(String(format: "p99 ratio sampler/reference: %.2f (target ≤ 1.2)", timer.p99 / reference.p99))
}

if wants("world") {
    print("== World: \(hours) h of 100 Hz states in virtual time (target < 60 s for 24 h, memory flat)")
    print(benchmarkWorld(hours: hours))
}

if wants("driver") {
    print("== Driver: \(hours) h of 100 Hz samples through an emulated IMU and magnetometer on the simulated bus")
    print(benchmarkDriver(hours: hours))
}
