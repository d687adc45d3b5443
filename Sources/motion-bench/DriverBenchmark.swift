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
/// The board is the `SimulatedBoard` a simulated `MotionManager` gets (bus log of 10 000 kept).
func benchmarkDriver(hours: Double = 24, rate: Double = 100) -> String {
    let count = Int(hours * 3600 * rate)
    let clock = VirtualClock(start: 1000)
    let world = Scenario.tumble.world(startTime: 1000)
    let source = ErrorModelSource(base: world, imu: .lsm6dsox, magnetometer: .lis3mdl, seed: 1, sampleRate: rate)
    let board = SimulatedBoard(imu: .lsm6dsox, magnetometer: .chip(.lis3mdl), source: source, now: { clock.now })
    let bus = board.bus
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
        over the simulated board's bus, tumble scenario, virtual time
          \(String(format: "%.2f", seconds)) s (\(String(format: "%.0f", seconds / Double(count) * 1e9)) ns/tick, \
        \(String(format: "%.2f", Double(count) / seconds / 1e6)) M ticks/s, \(saturated) saturated, checksum \(String(format: "%.6g", checksum)))
          bus transactions: \(bus.transactionCount)
          peak resident memory: \(peakBefore.map { "\($0) kB" } ?? "n/a") before, \(peakAfter.map { "\($0) kB" } ?? "n/a") after
        """
}
