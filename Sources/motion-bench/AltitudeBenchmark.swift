import Dispatch
import Foundation
import Fusion
import Motion
import MotionSimulation
import Synchronization

/// The altimeter next to the IMU pipeline, in virtual time (CPU seconds of this process, so the
/// emulated chips and the simulated bus are counted too): µs per barometer reading (BMP280
/// emulator, bus, driver, the barometer's sampler, the update's sums; one-second relative-altitude
/// updates to a handler queue), µs per device-motion sample (the same as `sampler-virtual`), and
/// ns per update of the baro-inertial vertical channel.
func runAltitudeBenchmark(readings: Int) {
    print("== Altitude: the barometer's pipeline and the vertical channel, next to the IMU's, in virtual time")
    do {
        let perReading = try benchmarkBarometerVirtual(readings: readings)
        let perSample = try benchmarkSamplerVirtual(samples: 20_000)
        print(String(format: "barometer reading (BMP280 at 26.3 Hz, %d readings): %.1f µs per reading", readings, 1e6 * perReading))
        print(String(format: "device motion (LSM6DSOX + LIS3MDL at 100 Hz, 20000 samples): %.1f µs per sample", 1e6 * perSample))
    } catch {
        print("altitude benchmark failed: \(error)")
    }
    print(String(format: "vertical channel (100 Hz predictions, a barometer correction every fourth): %.1f ns per prediction", 1e9 * benchmarkVerticalChannel(updates: 10_000_000)))
}

/// CPU seconds per barometer reading on the simulated stairs.
func benchmarkBarometerVirtual(readings: Int) throws -> Double {
    let clock = VirtualClock()
    let altimeter = try Altimeter(source: .simulated(Simulation(scenario: "stairs")), clock: clock)
    let queue = DispatchQueue(label: "bench.altitude")
    let delivered = Atomic(0)
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in
        if data != nil { delivered.add(1, ordering: .relaxed) }
    }
    clock.advance(by: 1)   // the chip's set-up and first reads
    queue.sync {}
    let readingsBefore = altimeter.counters.sampled
    let before = processCPUSeconds()
    for _ in 0..<max(1, readings / 26) {
        clock.advance(by: 1)
        queue.sync {}
    }
    let cpu = processCPUSeconds() - before
    let done = altimeter.counters.sampled - readingsBefore
    altimeter.stopRelativeAltitudeUpdates()
    return cpu / Double(max(1, done))
}

/// Seconds per prediction of ``VerticalChannel`` (with a correction every fourth, the barometer's
/// 26 Hz against the IMU's 100 Hz), on a synthetic climb.
func benchmarkVerticalChannel(updates: Int) -> Double {
    // The inputs made beforehand (a climb at 0.25 m/s with 1 cm of wobble), so that only the
    // filter is timed.
    let period = 1024
    let altitudes = (0..<period).map { (index: Int) -> Double in
        let k = Double(index)
        return 0.25 * k * 0.04 + 0.01 * sin(k * 0.3)
    }
    let accelerations = (0..<period).map { (index: Int) -> Double in 0.05 * sin(Double(index) * 0.01) }
    var channel = VerticalChannel()
    channel.correct(barometricAltitude: 0)
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<updates {
        let slot = index & (period - 1)
        if index & 3 == 0 { channel.correct(barometricAltitude: altitudes[slot]) }
        channel.predict(verticalAcceleration: accelerations[slot], interval: 0.01)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
    // Keeps the loop from being optimised away.
    if channel.altitude.isNaN { print("vertical channel: NaN") }
    return seconds / Double(updates)
}
