import Foundation
import I2C
import Testing
@testable import Motion

/// A board file's `"imus"`: each IMU at an I2C address or behind an SPI device, checked as every
/// other key is (boards/README.md).
@Suite struct BoardIMUListTests {
    static func withIMUs(_ imus: Any) -> [String: Any] {
        BoardFixtures.setting(BoardFixtures.validBoardObject(), "imus", imus)
    }

    @Test func placesLoadInOrderAndSurviveARoundTrip() throws {
        let object = Self.withIMUs([
            ["address": "0x6A", "chip": "LSM6DSOX"], ["i2cBus": "/dev/i2c-1", "address": "0x6B"], ["spi": "/dev/spidev0.1", "chip": "ICM-42688-P"],
        ])
        let board = try BoardFixtures.loadBoard(object).get()
        #expect(board.imuLocations == [
            .i2c(bus: "/dev/i2c-1", address: 0x6A), .i2c(bus: "/dev/i2c-1", address: 0x6B), .spi(device: "/dev/spidev0.1"),
        ])
        #expect(board.imus.map(\.chip) == ["LSM6DSOX", nil, "ICM-42688-P"])
        #expect(try JSONDecoder().decode(Board.self, from: JSONEncoder().encode(board)) == board)
        #expect(try BoardFixtures.loadBoard(BoardFixtures.validBoardObject()).get().imuLocations == [])
    }

    /// One IMU's view: its address alone, its chip, and the board's magnetometer only for the first.
    @Test func narrowedToOneIMU() throws {
        let board = try BoardFixtures.loadBoard(Self.withIMUs([["address": "0x6A"], ["spi": "/dev/spidev0.0", "chip": "BMI160"]])).get()
        let first = board.narrowed(to: board.imuLocations[0])
        #expect(first.imuAddresses == [I2CAddress(0x6A)])
        #expect(first.magnetometerAddresses == board.magnetometerAddresses)
        let second = board.narrowed(to: board.imuLocations[1])
        #expect(second.imuChip == "BMI160")
        #expect(second.magnetometerAddresses.isEmpty)
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        let label: String
        let keyPath: String
        let imus: @Sendable () -> Any
        var testDescription: String { label }
    }

    static let broken: [Broken] = [
        Broken(label: "empty list", keyPath: "imus") { [Any]() },
        Broken(label: "neither address nor spi", keyPath: "imus[0]") { [["chip": "BMI160"]] },
        Broken(label: "both address and spi", keyPath: "imus[0]") { [["address": "0x68", "spi": "/dev/spidev0.0"]] },
        Broken(label: "an SPI device that is not spidevB.C", keyPath: "imus[0].spi") { [["spi": "/dev/spidev0"]] },
        Broken(label: "an I2C bus not on the board", keyPath: "imus[0].i2cBus") { [["i2cBus": "/dev/i2c-7", "address": "0x68"]] },
        Broken(label: "an I2C bus beside spi", keyPath: "imus[0].i2cBus") { [["i2cBus": "/dev/i2c-1", "spi": "/dev/spidev0.0"]] },
        Broken(label: "an address out of range", keyPath: "imus[0].address") { [["address": "0x80"]] },
        Broken(label: "a place twice", keyPath: "imus[1]") { [["spi": "/dev/spidev0.0"], ["spi": "/dev/spidev0.0"]] },
        Broken(label: "an unknown chip", keyPath: "imus[0].chip") { [["address": "0x68", "chip": "XYZ123"]] },
    ]

    @Test(arguments: broken)
    func aBrokenListNamesThePlaceAndTheFix(_ case_: Broken) throws {
        let error = try #require(try BoardFixtures.boardError(Self.withIMUs(case_.imus())), "\(case_.label) was accepted")
        #expect(error.keyPath == case_.keyPath, "\(error)")
        #expect(!error.fix.isEmpty)
    }
}

