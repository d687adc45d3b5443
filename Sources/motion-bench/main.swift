import Foundation

// Benchmarks (not tests), each next to a reference or a target measured in the same run:
//   swift run -c release motion-bench [fusion] [timer] [sampler] [world] [driver] [--seconds S] [--hours H]
// With no name, all of them (sampler-virtual is a part of sampler).
//   fusion:  ns per 6D and 9D filter update, against a Madgwick update.
//   timer:   100 Hz timer deviation against clock_nanosleep (--seconds, default 5).
//   sampler: CPU at 100 Hz with device motion on the simulated board (--seconds).
//   world:   24 h of 100 Hz ground truth and error-model states in virtual time (--hours, default 24).
//   driver:  the same span read through emulated chips, the simulated bus and the drivers.
//   sampler-virtual: only the virtual-time part of `sampler` (--samples N, default 20000), for a
//            profiler: `valgrind --tool=callgrind` at two sample counts, the difference per sample.
//   recovery: a fault plan (--faults SPEC, motionctl's syntax) on the simulated board in virtual
//            time, timer and FIFO, next to the same run without faults (--seconds, default 5).
//   publish: CPU at 100 Hz sampling with publishing to MQTT at 10 Hz against without (a Mosquitto
//            started on a free loopback port; skipped without mosquitto), --seconds each.
//   ros2:    CPU at 100 Hz sampling with sensor_msgs/Imu publishing over DDS at 100 Hz against without, --seconds each.
//   altitude: µs per barometer reading and ns per vertical-channel update, next to µs per device-motion sample (virtual time).
let arguments = CommandLine.arguments.dropFirst()
let benchmarkNames = ["fusion", "timer", "sampler", "world", "driver", "sampler-virtual", "recovery", "publish", "ros2", "altitude"]
let usage = """
    usage: motion-bench [fusion] [timer] [sampler] [world] [driver] [recovery] [publish] [ros2] [altitude] [sampler-virtual]
                        [--seconds S] [--hours H] [--samples N] [--faults SPEC]
    Benchmarks (not tests), each next to a reference measured in the same run; build them with
    `swift run -c release motion-bench …`. With no name, all of them but sampler-virtual.
      fusion           ns per 6D and 9D filter update, against a Madgwick update
      timer            100 Hz timer deviation against clock_nanosleep (--seconds, default 5)
      sampler          CPU at 100 Hz with device motion on the simulated board (--seconds)
      world            24 h of 100 Hz ground truth and error-model states in virtual time (--hours, default 24)
      driver           the same span read through emulated chips, the simulated bus and the drivers
      recovery         a fault plan (--faults SPEC, motionctl's syntax) in virtual time, timer and FIFO,
                       next to the same run without faults (--seconds, default 5)
      publish          CPU at 100 Hz sampling with publishing to MQTT at 10 Hz against without (a Mosquitto
                       on a free loopback port; skipped without mosquitto), --seconds each
      ros2             CPU at 100 Hz sampling with sensor_msgs/Imu over DDS at 100 Hz against without, --seconds each
      altitude         µs per barometer reading and ns per vertical-channel update, next to µs per
                       device-motion sample, in virtual time (--samples readings, default 20000)
      sampler-virtual  only the virtual-time part of sampler (--samples N, default 20000), for a profiler
      -h, --help       this text
    """
if arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}
// Anything else that is not a benchmark's name, an option or an option's value is a mistake:
// said with the usage, instead of running every benchmark (which takes minutes).
let valueOptions: Set = ["--seconds", "--hours", "--samples", "--faults"]
var expectsValue = false
for argument in arguments {
    defer { expectsValue = !expectsValue && valueOptions.contains(argument) }
    if expectsValue || benchmarkNames.contains(argument) || valueOptions.contains(argument) { continue }
    // A full or closed standard error loses the message, never traps; the exit status still says it.
    do { try FileHandle.standardError.write(contentsOf: Data("motion-bench: unknown argument '\(argument)'\n\(usage)\n".utf8)) } catch {}
    exit(2)
}
func value(of option: String) -> Double? {
    arguments.firstIndex(of: option).flatMap { arguments.index(after: $0) < arguments.endIndex ? Double(arguments[arguments.index(after: $0)]) : nil }
}
let seconds = value(of: "--seconds") ?? 5
let hours = value(of: "--hours") ?? 24
let virtualSamples = value(of: "--samples").map { Int($0) } ?? 20_000
let faultsIndex = arguments.firstIndex(of: "--faults").map { arguments.index(after: $0) }
let faults = faultsIndex.flatMap { $0 < arguments.endIndex ? arguments[$0] : nil } ?? "imu:vanish+1@1,mag:reset@3,imu:eio*3@4"
let selected = Set(arguments.enumerated().filter { offset, argument in
    !argument.hasPrefix("-") && Double(argument) == nil && arguments.startIndex + offset != faultsIndex
}.map(\.element))
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

if wants("recovery") {
    runRecoveryBenchmark(plan: faults, seconds: max(seconds, 5))
}

if wants("fusion") {
    runFusionBenchmark()
}

if wants("timer") {
    print("== Timer: 100 Hz for \(Int(seconds)) s; the sampler's timer, a DispatchSourceTimer and a clock_nanosleep loop at once")
    let (timer, dispatch, reference) = benchmarkTimer(rate: 100, seconds: seconds)
    print("delivered-interval deviation |(t_k − t_k−1) − 10 ms|:")
    print("  sampler (SystemClock):          \(timer.interval)")
    print("  strict DispatchSourceTimer:     \(dispatch.interval)")
    print("  clock_nanosleep loop (ref):     \(reference.interval)")
    print(String(format: "  p99 ratio sampler/reference: %.2f (target ≤ 1.2); DispatchSourceTimer/reference: %.2f",
                 timer.interval.p99 / reference.interval.p99, dispatch.interval.p99 / reference.interval.p99))
    print("lateness t_k − due_k (sample timestamps are taken at the read, so lateness does not skew them):")
    print("  sampler (SystemClock):          \(timer.lateness)")
    print("  strict DispatchSourceTimer:     \(dispatch.lateness)")
    print("  clock_nanosleep loop (ref):     \(reference.lateness)")
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

if selected.contains("sampler-virtual") {
    do {
        let perSample = try benchmarkSamplerVirtual(samples: virtualSamples)
        print(String(format: "device motion in virtual time, %d samples: %.1f µs per sample", virtualSamples, 1e6 * perSample))
    } catch {
        print("sampler benchmark failed: \(error)")
    }
}

if wants("publish") {
    runPublishBenchmark(seconds: seconds)
}

if wants("ros2") {
    runROS2Benchmark(seconds: seconds)
}

if wants("altitude") {
    runAltitudeBenchmark(readings: virtualSamples)
}

if wants("world") {
    print("== World: \(hours) h of 100 Hz states in virtual time (target < 60 s for 24 h, memory flat)")
    print(benchmarkWorld(hours: hours))
}

if wants("driver") {
    print("== Driver: \(hours) h of 100 Hz samples through an emulated IMU and magnetometer on the simulated bus")
    print(benchmarkDriver(hours: hours))
}
