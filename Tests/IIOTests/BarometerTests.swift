import IIO
import IIOFake
import Testing

/// The kernel's barometer drivers through sysfs, in each one's style, on fake trees.
@Suite struct BarometerTests {
    /// bmp280 and dps310 expose processed channels: kPa and m°C.
    @Test func processedChannels() throws {
        let tree = try FakeIIOTree()
        try tree.add(FakeIIODevice(name: "bmp280", attributes: ["in_pressure_input": "100.653250000", "in_temp_input": "25080"]),
                     as: "iio:device2")
        let barometer = try #require(IIOBarometer.devices(root: tree.sysfs).devices.first)
        #expect(barometer.name == "bmp280")
        #expect(barometer.id == "iio:device2")
        let reading = try barometer.read()
        #expect(abs(reading.pascal - 100_653.25) < 1e-6)
        #expect(reading.celsius == 25.08)
    }

    /// st_pressure exposes raw channels with a scale, and the LPS25H's temperature an offset:
    /// (raw + offset) × scale. AN4450's example counts: 0x3FF58D and 0xE07C (−8068); the kernel's
    /// scale, 10⁸ / 4096 nano-kPa, is printed to the nano (0.000024414), 0.3 Pa low at 1023 hPa.
    @Test func rawChannelsWithScaleAndOffset() throws {
        let tree = try FakeIIOTree()
        try tree.add(FakeIIODevice(name: "lps25h", attributes: [
            "in_pressure_raw": "4191629", "in_pressure_scale": "0.000024414",
            "in_temp_raw": "-8068", "in_temp_scale": "2.083333333", "in_temp_offset": "20400",
        ]), as: "iio:device0")
        let barometer = try #require(IIOBarometer.devices(root: tree.sysfs).devices.first)
        let reading = try barometer.read()
        #expect(abs(reading.pascal - 4_191_629 * 0.024414) < 1e-6)
        #expect(abs(reading.pascal - 102_334.69) < 0.4)
        #expect(abs(try #require(reading.celsius) - 25.691_666) < 1e-3)
    }

    /// A motion sensor is no barometer; a barometer without temperature reads nil there.
    @Test func onlyPressureDevicesAreListed() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (0, 0, 0)), as: "iio:device0")
        try tree.add(FakeIIODevice(name: "ms5611", attributes: ["in_pressure_input": "100.009"]), as: "iio:device1")
        let (devices, problems) = IIOBarometer.devices(root: tree.sysfs)
        #expect(problems.isEmpty)
        #expect(devices.map(\.name) == ["ms5611"])
        #expect(try devices[0].read().celsius == nil)
    }

    /// A pressure of 0 (or text that is no number) is refused, naming the file.
    @Test func impossibleValuesAreRefused() throws {
        let tree = try FakeIIOTree()
        try tree.add(FakeIIODevice(name: "dps310", attributes: ["in_pressure_input": "0", "in_temp_input": "20000"]), as: "iio:device0")
        let barometer = try #require(IIOBarometer.devices(root: tree.sysfs).devices.first)
        let error = try #require(throws: IIOError.self) { try barometer.read() }
        #expect(error.kind == .badValue)
        #expect(error.path.hasSuffix("iio:device0/in_pressure_input"))
        try tree.set("in_pressure_input", of: "iio:device0", to: "n/a")
        #expect(throws: IIOError.self) { try barometer.read() }
    }
}
