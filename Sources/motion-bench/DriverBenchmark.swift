import Foundation
import I2C
import MotionSimulator
import Sensors
import Timing

/// The full device path in virtual time: `hours` of `rate` Hz ticks, each reading one IMU sample
/// (LSM6DSOX driver, 14-byte burst) and one magnetometer sample (LIS3MDL driver, 6 bytes) over a
/// simulated bus from their emulators, fed by the looping tumble scenario with the chips'
/// datasheet errors. Reports time, samples per second and peak memory.
///
/// - Parameter logCapacity: the bus's transaction log (0: off). `SimulatedBoard` keeps 10 000.
func benchmarkDriver(hours: Double = 24, rate: Double = 100, logCapacity: Int = 0) -> String {
    let count = Int(hours * 3600 * rate)
    let clock = VirtualClock(start: 1000)
    let world = Scenario.tumble.world(startTime: 1000)
    let source = ErrorModelSource(base: world, imu: .lsm6dsox, magnetometer: .lis3mdl, seed: 1, sampleRate: rate)
    let bus = SimulatedBus(logCapacity: logCapacity, now: { clock.now })
    bus.attach(LSM6DSOXEmulator(source: source, now: { clock.now }), at: I2CAddress(0x6A))
    bus.attach(LIS3MDLEmulator(source: source, now: { clock.now }), at: I2CAddress(0x1C))
    let imu = LSM6IMU(bus: bus, address: I2CAddress(0x6A), model: .lsm6dso, pause: .none)
    let magnetometer = LIS3MDLMagnetometer(bus: bus, address: I2CAddress(0x1C), pause: .none)
    let peakBefore = peakResidentKilobytes()
    let start = DispatchTime.now().uptimeNanoseconds
    var checksum = 0.0, saturated = 0
    do {
        try imu.configure(imu.defaultConfiguration)
        try magnetometer.configure(magnetometer.defaultConfiguration)
        for _ in 0..<count {
            clock.advance(by: 1 / rate)
            let sample = try imu.readSample()
            let field = try magnetometer.readSample()
            checksum += sample.acceleration.z + sample.rotationRate.x + field.field.y
            if sample.isSaturated || field.isSaturated { saturated += 1 }
        }
    } catch {
        return "driver: failed: \(error)"
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
    let peakAfter = peakResidentKilobytes()
    return """
        driver: \(count) ticks (\(hours) h at \(rate) Hz), each an LSM6DSOX + LIS3MDL read through the drivers \
        over the simulated bus (log \(logCapacity == 0 ? "off" : "of \(logCapacity)")), tumble scenario, virtual time
          \(String(format: "%.2f", seconds)) s (\(String(format: "%.0f", seconds / Double(count) * 1e9)) ns/tick, \
        \(String(format: "%.2f", Double(count) / seconds / 1e6)) M ticks/s, \(saturated) saturated, checksum \(String(format: "%.6g", checksum)))
          bus transactions: \(bus.transactionCount)
          peak resident memory: \(peakBefore.map { "\($0) kB" } ?? "n/a") before, \(peakAfter.map { "\($0) kB" } ?? "n/a") after
        """
}
