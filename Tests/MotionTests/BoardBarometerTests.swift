import Foundation
import I2C
import MotionSimulation
import Sensors
import Testing
import Timing
@testable import Motion

/// A board file's `barometer` key: the chip a board carries and its address.
@Suite("Board files: the barometer key")
struct BoardBarometerTests {
    @Test("the Sense HAT names its LPS25H at 0x5C; a board without the key looks at every barometer address")
    func senseHatNamesItsBarometer() throws {
        let hat = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b-sense-hat"))
        #expect(hat.barometer == Board.Barometer(chip: "LPS25H", address: I2CAddress(0x5C)))
        #expect(hat.barometerAddresses == [I2CAddress(0x5C)])
        for board in BoardCatalog.builtIn.boards where board.id != hat.id {
            #expect(board.barometer == nil, "\(board.id)")
            #expect(board.barometerAddresses == ChipRegistry.barometerScanAddresses, "\(board.id)")
        }
        // Encoded as read, and only where the board has it.
        let encoded = try JSONEncoder().encode(hat)
        #expect(try JSONDecoder().decode(Board.self, from: encoded) == hat)
        let object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(object["barometer"] as? [String: String] == ["chip": "LPS25H", "address": "0x5C"])
        let plain = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b"))
        let plainObject = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(plain)) as? [String: Any])
        #expect(plainObject["barometer"] == nil)
    }

    @Test("a file with the key loads it; one without it loads as before")
    func fileWithAndWithoutTheKey() throws {
        let with = BoardFixtures.setting(BoardFixtures.validBoardObject(), "barometer", ["chip": "BMP280", "address": "0x77"])
        #expect(try BoardFixtures.loadBoard(with).get().barometer == Board.Barometer(chip: "BMP280", address: I2CAddress(0x77)))
        #expect(try BoardFixtures.loadBoard(BoardFixtures.validBoardObject()).get().barometer == nil)
    }

    @Test("a broken barometer key names its path and a fix",
          arguments: [
            ("unknown chip", #"{"chip": "BMP999", "address": "0x76"}"#, BoardFileError.Kind.invalidValue, "barometer.chip"),
            ("an IMU named as the barometer", #"{"chip": "LSM9DS1", "address": "0x76"}"#, .invalidValue, "barometer.chip"),
            ("address out of range", #"{"chip": "BMP280", "address": "0x7F"}"#, .invalidValue, "barometer.address"),
            ("address as a number", #"{"chip": "BMP280", "address": 118}"#, .wrongType, "barometer.address"),
            ("no address", #"{"chip": "BMP280"}"#, .missingKey, "barometer.address"),
            ("unknown key", #"{"chip": "BMP280", "address": "0x76", "bus": 1}"#, .unknownKey, "barometer.bus"),
            ("not an object", #"["LPS25H", "0x5C"]"#, .wrongType, "barometer"),
          ])
    func brokenKey(_ label: String, _ json: String, _ kind: BoardFileError.Kind, _ keyPath: String) throws {
        let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let error = try #require(
            try BoardFixtures.boardError(BoardFixtures.setting(BoardFixtures.validBoardObject(), "barometer", value)), "\(label) was accepted")
        #expect(error.kind == kind, "\(label)")
        #expect(error.keyPath == keyPath, "\(label)")
        #expect(!error.fix.isEmpty)
    }

    @Test("the simulated Sense HAT carries its LPS25H at 0x5C, and the altimeter reads it there")
    func simulatedSenseHatReadsItsLPS25H() throws {
        let hat = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b-sense-hat"))
        let simulation = try Simulation(scenario: "rest").laidOut(like: hat)
        #expect(simulation.barometer == SimulatedBoard.Barometer(rawValue: "lps25h"))
        let clock = VirtualClock()
        let altimeter = try Altimeter(source: .simulated(simulation), clock: clock)
        let name = try #require(altimeter.barometerName)
        #expect(name.contains("LPS25H") && name.contains("0x5C"), "\(name)")
    }
}
