import Dispatch
import Foundation
import Locking
import Motion
import MotionSimulation
import MotionSimulator
import Synchronization
import Timing

#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds (user + system) this process has used.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) * 1e-6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6
}

struct SamplerCost: CustomStringConvertible {
    var samples: Int
    var wallSeconds: Double
    var cpuSeconds: Double
    var simulationCPUSeconds: Double
    /// The same timer and queue hop with no work at all, run for the same time.
    var bareTimerCPUSeconds: Double

    var description: String {
        let library = max(0, cpuSeconds - simulationCPUSeconds - bareTimerCPUSeconds)
        return String(
            format: """
            delivered %d samples in %.2f s: %.1f Hz
            CPU, whole process:        %6.2f %% of one core   %7.1f µs per sample
            CPU, simulated chips only: %6.2f %% of one core   %7.1f µs per sample (the same reads, no manager)
            CPU, bare 100 Hz timer:    %6.2f %% of one core   %7.1f µs per tick (the sampler's timer + the hop to a handler queue, no work: two thread wake-ups)
            CPU, the library:          %6.2f %% of one core   %7.1f µs per sample (the rest: drivers, sampler, filter, delivery)
            """,
            samples, wallSeconds, Double(samples) / wallSeconds,
            100 * cpuSeconds / wallSeconds, 1e6 * cpuSeconds / Double(max(1, samples)),
            100 * simulationCPUSeconds / wallSeconds, 1e6 * simulationCPUSeconds / Double(max(1, samples)),
            100 * bareTimerCPUSeconds / wallSeconds, 1e6 * bareTimerCPUSeconds / Double(max(1, samples)),
            100 * library / wallSeconds, 1e6 * library / Double(max(1, samples)))
    }
}

/// Device motion at 100 Hz on the simulated board in real time (the sampler's timer, the
/// drivers, the filter, delivery to a handler queue), for `seconds`; then, as a reference in
/// the same run, the CPU the simulated chips alone take for the same number of reads.
func benchmarkSampler(seconds: Double) throws -> SamplerCost {
    let manager = try MotionManager(source: .simulated(Simulation(scenario: "tumble")), calibrationStore: nil)
    let delivered = Atomic(0)
    let queue = DispatchQueue(label: "bench.handler")
    manager.deviceMotionUpdateInterval = 0.01
    manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, _ in
        if motion != nil { delivered.add(1, ordering: .relaxed) }
    }
    // Measured from the 10th sample on: the first read is a one-off (chip setup, and the simulated
    // chips walk their bias random walk from boot to now), not a per-sample cost.
    while delivered.load(ordering: .relaxed) < 10 { Thread.sleep(forTimeInterval: 0.01) }
    let cpuBefore = processCPUSeconds()
    let wallBefore = SystemClock.monotonicSeconds()
    let deliveredBefore = delivered.load(ordering: .relaxed)
    Thread.sleep(forTimeInterval: seconds)
    let samples = delivered.load(ordering: .relaxed) - deliveredBefore
    let wall = SystemClock.monotonicSeconds() - wallBefore
    let cpu = processCPUSeconds() - cpuBefore
    manager.stopDeviceMotionUpdates()

    // Reference: the simulated chips answering the same reads (one IMU burst, one magnetometer
    // burst), 10 ms of simulated time apart as in the run (the world's error models step with
    // time: reads microseconds apart would cost them far less).
    let simulatedTime = Locked(SystemClock.monotonicSeconds())
    let simulation = try Simulation(scenario: "tumble").makeBoard(startTime: simulatedTime.withLock { $0 }) {
        simulatedTime.withLock { $0 }
    }
    let bus = simulation.board.bus
    let imu = simulation.board.imuAddress
    let magnetometer = simulation.board.magnetometerAddress
    try bus.writeRegister(imu, 0x10, 0x54)          // LSM6DSOX CTRL1_XL: 208 Hz, ±4 g
    try bus.writeRegister(imu, 0x11, 0x54)          // CTRL2_G: 208 Hz, ±500 °/s
    _ = try bus.readRegisters(imu, 0x20, count: 14)   // the one-off walk from boot, as above
    let referenceBefore = processCPUSeconds()
    for _ in 0..<samples {
        simulatedTime.withLock { $0 += 0.01 }
        _ = try bus.readRegisters(imu, 0x20, count: 14)
        if let magnetometer { _ = try bus.readRegisters(magnetometer, 0xA8, count: 6) }
    }
    let reference = processCPUSeconds() - referenceBefore

    // Reference: the timer and the hop to a handler queue alone.
    let bareBefore = processCPUSeconds()
    let ticks = Atomic(0)
    let timer = SystemClock().scheduleRepeating(every: 0.01, on: DispatchQueue(label: "bench.bare", qos: .userInteractive)) { _ in
        queue.async { ticks.add(1, ordering: .relaxed) }
    }
    Thread.sleep(forTimeInterval: seconds)
    timer.cancel()
    let bare = processCPUSeconds() - bareBefore
    return SamplerCost(samples: samples, wallSeconds: wall, cpuSeconds: cpu, simulationCPUSeconds: reference, bareTimerCPUSeconds: bare)
}

/// The per-sample work without any waiting: the same pipeline in virtual time, as fast as it goes.
func benchmarkSamplerVirtual(samples: Int) throws -> Double {
    let clock = VirtualClock()
    let manager = try MotionManager(source: .simulated(Simulation(scenario: "tumble")), clock: clock, calibrationStore: nil)
    let queue = DispatchQueue(label: "bench.virtual")
    let delivered = Atomic(0)
    manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, _ in
        if motion != nil { delivered.add(1, ordering: .relaxed) }
    }
    clock.advance(by: 0.1)   // the one-off first read, as in `benchmarkSampler`
    queue.sync {}
    let deliveredBefore = delivered.load(ordering: .relaxed)
    let before = processCPUSeconds()
    for _ in 0..<samples / 100 {
        clock.advance(by: 1)
        queue.sync {}
    }
    let cpu = processCPUSeconds() - before
    manager.stopDeviceMotionUpdates()
    return cpu / Double(max(1, delivered.load(ordering: .relaxed) - deliveredBefore))
}
