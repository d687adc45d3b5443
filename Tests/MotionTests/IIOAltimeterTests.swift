import Dispatch
import Foundation
import IIO
import IIOFake
@testable import Motion
import MotionSimulation
import Testing
import Timing

/// `Altimeter(source: .iio(…))`: the kernel's barometer drivers as the altimeter's source, on fake
/// sysfs trees in virtual time.
@Suite struct IIOAltimeterTests {
    /// A bmp280 (processed channels) beside an IMU; readings every 1/10 s (no sampling_frequency).
    @Test func readsTheKernelsBarometerAtItsOwnRate() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (0, 0, 0)), as: "iio:device0")
        try tree.add(FakeIIODevice(name: "bmp280", attributes: ["in_pressure_input": "100.653250000", "in_temp_input": "25080"]),
                     as: "iio:device1")
        let clock = VirtualClock()
        let altimeter = try Altimeter(source: .iio(IIOSelection(root: tree.sysfs)), clock: clock)
        #expect(altimeter.barometerName == "bmp280 (Linux IIO driver, iio:device1)")
        #expect(altimeter.readingRate == IIOBarometerDevice.fallbackRate)
        let readings = Inbox<BarometerSample>()
        let relative = Inbox<AltitudeData>()
        altimeter.startReadings(to: readings.queue, withHandler: readings.handler)
        altimeter.startRelativeAltitudeUpdates(to: relative.queue, withHandler: relative.handler)
        clock.advance(by: 2)
        readings.drain()
        relative.drain()
        // 12 Pa less: about a metre higher (ρg ≈ 12 Pa/m at sea level).
        try tree.set("in_pressure_input", of: "iio:device1", to: "100.641250000")
        clock.advance(by: 2)
        readings.drain()
        relative.drain()
        altimeter.stopReadings()
        altimeter.stopRelativeAltitudeUpdates()
        let values = readings.values.withLock { $0 }
        #expect(readings.errors.withLock { $0 }.isEmpty && relative.errors.withLock { $0 }.isEmpty)
        // 4 s at 10 Hz: 40 periods (the first at the start, give or take the last at the end).
        #expect((39...41).contains(values.count), "\(values.count) readings")
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        let first = try #require(values.first)
        #expect(abs(first.pressure - 100_653.25) < 1e-6 && abs(first.temperature - 25.08) < 1e-9)
        #expect(abs(try #require(values.last).pressure - 100_641.25) < 1e-6)
        #expect(altimeter.counters.totalDropped == 0)
        let updates = relative.values.withLock { $0 }
        #expect(updates.count >= 3)
        let climbed = try #require(updates.last).relativeAltitude.doubleValue
        #expect(abs(climbed - 1.0) < 0.05, "\(climbed) m")
    }

    /// `name` picks a barometer by its driver's name; the sampling frequency sets the rate (at most 25 Hz).
    @Test func theSelectionsNamePicksTheBarometer() throws {
        let tree = try FakeIIOTree()
        try tree.add(FakeIIODevice(name: "bmp280", attributes: ["in_pressure_input": "100.0", "in_temp_input": "20000"]), as: "iio:device0")
        try tree.add(FakeIIODevice(name: "lps25h", attributes: [
            "in_pressure_raw": "4191629", "in_pressure_scale": "0.000024414", "sampling_frequency": "25",
        ]), as: "iio:device1")
        let named = try Altimeter(source: .iio(IIOSelection(root: tree.sysfs, name: "lps25h")), clock: VirtualClock())
        #expect(named.barometerName == "lps25h (Linux IIO driver, iio:device1)")
        #expect(named.readingRate == 25)
        // A name that is no barometer's (an IMU's, as `--iio-device` names it): the first barometer.
        let imuNamed = try Altimeter(source: .iio(IIOSelection(root: tree.sysfs, name: "mpu6050")), clock: VirtualClock())
        #expect(imuNamed.barometerName == "bmp280 (Linux IIO driver, iio:device0)")
    }

    /// A tree without a pressure channel: refused, naming where it looked and what to do.
    @Test func noBarometerIsRefusedWithTheFix() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (0, 0, 0)), as: "iio:device0")
        let error = try #require(throws: MotionError.self) {
            try Altimeter(source: .iio(IIOSelection(root: tree.sysfs)), clock: VirtualClock())
        }
        guard case .sensorNotAvailable(let message) = error else {
            Issue.record("expected sensorNotAvailable, got \(error)")
            return
        }
        #expect(message.contains(tree.sysfs) && message.contains("modprobe"))
    }

    /// A device that disappears is an error of the readings (the sampler's incident), not a trap.
    @Test func aVanishedDeviceIsReported() throws {
        let tree = try FakeIIOTree()
        try tree.add(FakeIIODevice(name: "dps310", attributes: ["in_pressure_input": "101.325", "in_temp_input": "21000"]), as: "iio:device0")
        let clock = VirtualClock()
        let altimeter = try Altimeter(source: .iio(IIOSelection(root: tree.sysfs)), clock: clock)
        let readings = Inbox<BarometerSample>()
        altimeter.startReadings(to: readings.queue, withHandler: readings.handler)
        clock.advance(by: 1)
        readings.drain()
        let before = readings.values.withLock { $0.count }
        try tree.remove("iio:device0")
        clock.advance(by: 2)
        readings.drain()
        altimeter.stopReadings()
        #expect(before >= 9)
        #expect(readings.values.withLock { $0.count } == before)
        #expect(!readings.errors.withLock { $0 }.isEmpty)
        #expect(altimeter.counters.totalDropped > 0)
    }
}
