import Foundation
import TestSupport
import Testing

/// An IMU on SPI and one IMU of several, through the built `motionctl`.
struct SPICommandTests {
    @Test func probeNamesTheSimulatedIMUBehindItsSPIDevice() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "bmi160", "--spi", "/dev/spidev0.1"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("/dev/spidev0.1: BMI160 (a manager on it alone: --spi /dev/spidev0.1)"), "\(result.output)")
        #expect(!lines.contains { $0.contains("0x68") }, "the IMU is on SPI, not on the I2C bus: \(result.output)")
    }

    /// The ICM-42688-P on SPI streams at 1 g ± 2 % at rest; its magnetometer stays on I2C.
    @Test func streamReadsTheIMUOnSPI() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "icm42688", "--spi", "/dev/spidev0.0", "--count", "20"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        let columns = try ["acc_x_g", "acc_y_g", "acc_z_g"].map { try #require(header.firstIndex(of: $0)) }
        let field = try #require(header.firstIndex(of: "mag_x_uT"))
        #expect(lines.dropFirst().count == 20)
        for row in lines.dropFirst() {
            let magnitude = columns.map { Double(row[$0]) ?? .nan }.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(magnitude - 1) <= 0.02, "\(row)")
            #expect(Double(row[field]) != nil, "\(row)")
        }
    }

    /// `--simulated --board FILE --address/--spi`: the board file's IMU at that place, the
    /// magnetometer with the first listed only.
    @Test func aBoardFilesIMUsOneByOne() throws {
        try withTemporaryDirectory("spi-board") { directory in
            let file = directory.appendingPathComponent("two-imus.json")
            try Data(#"""
                {"name": "Two IMUs", "id": "two-imus", "match": [], "mountMatrix": [1, 0, 0, 0, 1, 0, 0, 0, 1], "setup": "none",
                 "i2cBuses": [{"device": "/dev/i2c-1", "sdaPin": {"header": "3", "soc": "GPIO2"}, "sclPin": {"header": "5", "soc": "GPIO3"},
                               "defaultSpeedHz": 100000, "maxSpeedHz": 400000, "isDefault": true}],
                 "imus": [{"address": "0x6A", "chip": "LSM6DSOX"}, {"spi": "/dev/spidev0.0", "chip": "ICM-42688-P"}]}
                """#.utf8).write(to: file)
            let first = try BoardsCommandTests.run(["stream", "--simulated", "--board", file.path, "--address", "0x6A", "--count", "2"])
            let second = try BoardsCommandTests.run(["stream", "--simulated", "--board", file.path, "--spi", "/dev/spidev0.0", "--count", "2"])
            #expect(first.status == 0 && second.status == 0, "\(first.error) \(second.error)")
            #expect(first.output.hasPrefix("timestamp_s,") && first.output.split(separator: "\n")[0].contains(",mag_z_uT"), "\(first.output)")
            #expect(second.output.hasPrefix("timestamp_s,") && !second.output.contains("mag_"), "\(second.output)")
            #expect(first.output.split(separator: "\n").count == 3 && second.output.split(separator: "\n").count == 3)
        }
    }

    @Test(arguments: [
        (["stream", "--spi", "/dev/spi0"], "--spi /dev/spi0 is not an SPI device"),
        (["stream", "--address", "0x80"], "--address 0x80 is not an I2C address"),
        (["stream", "--address", "0x6A", "--spi", "/dev/spidev0.0"], "--address (I2C) and --spi"),
        (["stream", "--simulated", "--imu", "mpu9250", "--spi", "/dev/spidev0.0", "--count", "1"], "the simulator emulates SPI for"),
        (["stream", "--board", "raspberry-pi-4b", "--spi", "/dev/spidev7.3", "--count", "1"], "dtparam=spi=on"),
        (["stream", "--simulated", "--spi", "/dev/spidev0.0", "--faults", "imu:nack*3@1", "--count", "1"], "the IMU behind --spi is not on it"),
    ])
    func aWrongPlaceIsRefusedWithTheFix(arguments: [String], message: String) throws {
        let result = try BoardsCommandTests.run(arguments)
        #expect(result.status != 0)
        #expect(result.error.contains(message), "\(result.error)")
    }
}
