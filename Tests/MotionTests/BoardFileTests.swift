import Foundation
import Fusion
import I2C
import Sensors
import TestSupport
import Testing
@testable import Motion

/// Board files for the tests, built from a valid one by breaking one key at a time.
import MotionSimulation
enum BoardFixtures {
    /// The repository's `boards/` folder, found from this file's path.
    static let boardsDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("boards")

    /// A valid board file as a JSON object, to break one key at a time.
    static func validBoardObject(id: String = "test-board") -> [String: Any] {
        [
            "name": "Test Board",
            "id": id,
            "match": ["Test Board Rev *"],
            "i2cBuses": [[
                "device": "/dev/i2c-1",
                "sdaPin": ["header": "3", "soc": "GPIO2"],
                "sclPin": ["header": "5", "soc": "GPIO3"],
                "defaultSpeedHz": 100000,
                "maxSpeedHz": 400000,
                "isDefault": true,
            ]],
            "imuAddresses": ["0x68"],
            "magnetometerAddresses": ["0x1E"],
            "mountMatrix": [1, 0, 0, 0, 1, 0, 0, 0, 1],
            "setup": "Enable I2C.",
        ]
    }

    /// Writes `object` as `<id>.json` into a fresh temporary directory and loads it.
    static func loadBoard(_ object: [String: Any], fileName: String = "test-board.json") throws -> Result<Board, BoardFileError> {
        try withTemporaryDirectory("board-tests") { directory in
            let file = directory.appendingPathComponent(fileName)
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: file)
            do throws(BoardFileError) {
                return .success(try BoardCatalog.loadBoard(at: file.path))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Loads `object` and returns the error it must produce.
    static func boardError(_ object: [String: Any]) throws -> BoardFileError? {
        if case .failure(let error) = try loadBoard(object) { return error }
        return nil
    }

    static func setting(_ object: [String: Any], _ key: String, _ value: Any?) -> [String: Any] {
        var copy = object
        copy[key] = value
        return copy
    }

    static func settingBus(_ object: [String: Any], _ key: String, _ value: Any?) -> [String: Any] {
        var bus = (object["i2cBuses"] as? [[String: Any]])?.first ?? [:]
        bus[key] = value
        return setting(object, "i2cBuses", [bus])
    }
}

@Suite("Board files")
struct BoardFileTests {
    @Test("every file in boards/ validates and its id is its file name")
    func everyBoardFileValidates() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: BoardFixtures.boardsDirectory.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 11)
        for file in files {
            let board = try BoardCatalog.loadBoard(at: BoardFixtures.boardsDirectory.appendingPathComponent(file).path)
            #expect(board.id + ".json" == file)
            #expect(board.i2cBuses.filter(\.isDefault).count == 1)
            #expect(board.mountMatrix.isProperRotation())
            #expect(!board.imuAddresses.isEmpty)
        }
    }

    @Test("the required boards are built in, and no built-in file has a problem")
    func requiredBoardsAreBuiltIn() {
        #expect(BoardCatalog.builtInProblems.isEmpty, "\(BoardCatalog.builtInProblems)")
        let ids = Set(BoardCatalog.builtIn.boards.map(\.id))
        let required: Set = [
            "raspberry-pi-3b", "raspberry-pi-4b", "raspberry-pi-5", "raspberry-pi-zero-2w", "raspberry-pi-cm4",
            "jetson-nano", "jetson-orin-nano", "beaglebone-black", "orange-pi-5", "radxa-rock-5b", "simulated",
        ]
        #expect(required.isSubset(of: ids), "missing: \(required.subtracting(ids).sorted())")
    }

    @Test("a Raspberry Pi 4 reads as documented: /dev/i2c-1 on pins 3 and 5, 100 kHz default, 400 kHz max")
    func raspberryPi4Values() throws {
        let board = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b"))
        let bus = try #require(board.defaultBus)
        #expect(bus.device == "/dev/i2c-1")
        #expect(bus.busNumber == 1)
        #expect(bus.sdaPin.header == "3")
        #expect(bus.sclPin.header == "5")
        #expect(bus.defaultSpeedHz == 100_000)
        #expect(bus.maxSpeedHz == 400_000)
        #expect(board.imuAddresses.first == I2CAddress(0x68))
        #expect(board.mountMatrix == .identity)
        #expect(board.setup.contains("dtparam=i2c_arm=on"))
        #expect(board.setup.contains("dtparam=i2c_arm_baudrate=400000"))
    }

    @Test("a valid file loads")
    func validFileLoads() throws {
        let board = try BoardFixtures.loadBoard(BoardFixtures.validBoardObject()).get()
        #expect(board.name == "Test Board")
        #expect(board.magnetometerAddresses == [I2CAddress(0x1E)])
    }

    @Test("the address lists are optional: without them a board scans the registry's addresses; with them it narrows the scan")
    func addressListsNarrowTheRegistrysScan() throws {
        var object = BoardFixtures.validBoardObject()
        object["imuAddresses"] = nil
        object["magnetometerAddresses"] = nil
        let open = try BoardFixtures.loadBoard(object).get()
        #expect(open.narrowedIMUAddresses == nil && open.narrowedMagnetometerAddresses == nil)
        #expect(open.imuAddresses == ChipRegistry.imuScanAddresses)
        #expect(open.magnetometerAddresses == ChipRegistry.magnetometerScanAddresses)
        let narrowed = try BoardFixtures.loadBoard(BoardFixtures.validBoardObject()).get()
        #expect(narrowed.imuAddresses == [I2CAddress(0x68)] && narrowed.magnetometerAddresses == [I2CAddress(0x1E)])
        // Every built-in board but the Sense HAT (whose LSM9DS1 sits at fixed addresses) scans the registry's.
        for board in BoardCatalog.builtIn.boards {
            let narrows = board.narrowedIMUAddresses != nil || board.narrowedMagnetometerAddresses != nil
            #expect(narrows == (board.id == "raspberry-pi-4b-sense-hat"), "\(board.id)")
        }
        let hat = try #require(BoardCatalog.builtIn.board(id: "raspberry-pi-4b-sense-hat"))
        #expect(hat.imuAddresses == [I2CAddress(0x6A)] && hat.magnetometerAddresses == [I2CAddress(0x1C)])
        // Encoded as read: the keys only where the board narrows.
        let encoded = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(open)) as? [String: Any])
        #expect(encoded["imuAddresses"] == nil && encoded["magnetometerAddresses"] == nil)
        #expect(try JSONDecoder().decode(Board.self, from: JSONEncoder().encode(hat)) == hat)
    }

    @Test("Codable round trip keeps every value, and decoding applies the same checks")
    func codableRoundTrip() throws {
        let board = try #require(BoardCatalog.builtIn.board(id: "beaglebone-black"))
        let data = try JSONEncoder().encode(board)
        #expect(try JSONDecoder().decode(Board.self, from: data) == board)
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["extra"] = 1
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Board.self, from: JSONSerialization.data(withJSONObject: object))
        }
    }

    // MARK: Each kind of broken file

    struct Broken: Sendable, CustomTestStringConvertible {
        let label: String
        let kind: BoardFileError.Kind
        let keyPath: String
        let make: @Sendable () -> [String: Any]
        var testDescription: String { label }
    }

    static let broken: [Broken] = [
        Broken(label: "unknown top-level key", kind: .unknownKey, keyPath: "colour") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "colour", "red") },
        Broken(label: "typo in a bus key", kind: .unknownKey, keyPath: "i2cBuses[0].maxSpeedHZ") {
            BoardFixtures.settingBus(BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "maxSpeedHz", nil), "maxSpeedHZ", 400000)
        },
        Broken(label: "unknown pin key", kind: .unknownKey, keyPath: "i2cBuses[0].sdaPin.gpio") {
            BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "sdaPin", ["header": "3", "soc": "GPIO2", "gpio": 2])
        },
        Broken(label: "missing name", kind: .missingKey, keyPath: "name") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "name", nil) },
        Broken(label: "missing bus list", kind: .missingKey, keyPath: "i2cBuses") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "i2cBuses", nil) },
        Broken(label: "missing mount matrix", kind: .missingKey, keyPath: "mountMatrix") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "mountMatrix", nil) },
        Broken(label: "missing bus speed", kind: .missingKey, keyPath: "i2cBuses[0].defaultSpeedHz") {
            BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "defaultSpeedHz", nil)
        },
        Broken(label: "empty bus list", kind: .invalidValue, keyPath: "i2cBuses") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "i2cBuses", [Any]()) },
        Broken(label: "bus list not an array", kind: .wrongType, keyPath: "i2cBuses") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "i2cBuses", "/dev/i2c-1") },
        Broken(label: "device without dash", kind: .invalidValue, keyPath: "i2cBuses[0].device") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "device", "/dev/i2c1") },
        Broken(label: "device not i2c", kind: .invalidValue, keyPath: "i2cBuses[0].device") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "device", "/dev/spidev0.0") },
        Broken(label: "device with letters", kind: .invalidValue, keyPath: "i2cBuses[0].device") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "device", "/dev/i2c-x") },
        Broken(label: "address above 0x77", kind: .invalidValue, keyPath: "imuAddresses[1]") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "imuAddresses", ["0x68", "0x78"]) },
        Broken(label: "address below 0x08", kind: .invalidValue, keyPath: "magnetometerAddresses[0]") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "magnetometerAddresses", ["0x03"]) },
        Broken(label: "address not hex", kind: .invalidValue, keyPath: "imuAddresses[0]") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "imuAddresses", ["104"]) },
        Broken(label: "address as number", kind: .wrongType, keyPath: "imuAddresses[0]") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "imuAddresses", [104]) },
        Broken(label: "empty IMU address list", kind: .invalidValue, keyPath: "imuAddresses") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "imuAddresses", [String]()) },
        Broken(label: "zero speed", kind: .invalidValue, keyPath: "i2cBuses[0].maxSpeedHz") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "maxSpeedHz", 0) },
        Broken(label: "negative speed", kind: .invalidValue, keyPath: "i2cBuses[0].defaultSpeedHz") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "defaultSpeedHz", -100000) },
        Broken(label: "default above max", kind: .invalidValue, keyPath: "i2cBuses[0].defaultSpeedHz") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "defaultSpeedHz", 1_000_000) },
        Broken(label: "speed as string", kind: .wrongType, keyPath: "i2cBuses[0].maxSpeedHz") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "maxSpeedHz", "400 kHz") },
        Broken(label: "no default bus", kind: .invalidValue, keyPath: "i2cBuses") { BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "isDefault", false) },
        Broken(label: "matrix of 8 numbers", kind: .invalidValue, keyPath: "mountMatrix") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "mountMatrix", [1, 0, 0, 0, 1, 0, 0, 0]) },
        Broken(label: "matrix with a string", kind: .wrongType, keyPath: "mountMatrix[4]") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "mountMatrix", [1, 0, 0, 0, "1", 0, 0, 0, 1]) },
        Broken(label: "matrix scaled", kind: .invalidValue, keyPath: "mountMatrix") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "mountMatrix", [2, 0, 0, 0, 2, 0, 0, 0, 2]) },
        Broken(label: "matrix a reflection", kind: .invalidValue, keyPath: "mountMatrix") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "mountMatrix", [-1, 0, 0, 0, 1, 0, 0, 0, 1]) },
        Broken(label: "matrix sheared", kind: .invalidValue, keyPath: "mountMatrix") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "mountMatrix", [1, 1, 0, 0, 1, 0, 0, 0, 1]) },
        Broken(label: "id differs from file name", kind: .invalidValue, keyPath: "id") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "id", "other-board") },
        Broken(label: "empty setup", kind: .invalidValue, keyPath: "setup") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "setup", " ") },
        Broken(label: "wildcard inside a match entry", kind: .invalidValue, keyPath: "match[0]") { BoardFixtures.setting(BoardFixtures.validBoardObject(), "match", ["Test * Board"]) },
    ]

    @Test("a broken file gives an error naming the file, the key path and a fix", arguments: broken)
    func brokenFile(_ case_: Broken) throws {
        let error = try #require(try BoardFixtures.boardError(case_.make()), "\(case_.label) was accepted")
        #expect(error.kind == case_.kind)
        #expect(error.keyPath == case_.keyPath)
        #expect(error.file.hasSuffix("test-board.json"))
        #expect(error.description.contains("test-board.json: \(case_.keyPath): "))
        #expect(error.description.contains("Fix: "))
        #expect(!error.fix.isEmpty)
    }

    @Test("a typo'd key is answered with the key it resembles")
    func typoSuggestion() throws {
        let object = BoardFixtures.settingBus(BoardFixtures.settingBus(BoardFixtures.validBoardObject(), "maxSpeedHz", nil), "maxSpeedHZ", 400000)
        let error = try #require(try BoardFixtures.boardError(object))
        #expect(error.fix.contains("did you mean \"maxSpeedHz\""))
    }

    @Test("a file that is not JSON, and a missing file, are errors naming the file")
    func notJSONAndMissing() throws {
        try withTemporaryDirectory("board-tests") { directory in
            let file = directory.appendingPathComponent("broken.json")
            try Data("{\"name\": ".utf8).write(to: file)
            #expect(throws: BoardFileError.self) { try BoardCatalog.loadBoard(at: file.path) }
            do throws(BoardFileError) {
                _ = try BoardCatalog.loadBoard(at: file.path)
            } catch {
                #expect(error.kind == .invalidJSON)
                #expect(error.description.hasPrefix(file.path + ": not valid JSON"))
            }
            let missing = directory.appendingPathComponent("absent.json").path
            do throws(BoardFileError) {
                _ = try BoardCatalog.loadBoard(at: missing)
                Issue.record("a missing file loaded")
            } catch {
                #expect(error.kind == .unreadable)
                #expect(error.file == missing)
            }
        }
    }

    @Test("a user's board file joins the catalog and replaces a board of the same id")
    func userBoardJoinsCatalog() throws {
        let board = try BoardFixtures.loadBoard(BoardFixtures.validBoardObject()).get()
        let catalog = BoardCatalog.builtIn.adding(board)
        #expect(catalog.board(id: "test-board") == board)
        #expect(catalog.detect(model: "Test Board Rev 2\0") == board)
        #expect(catalog.boards.count == BoardCatalog.builtIn.boards.count + 1)
        var renamed = board
        renamed.name = "Renamed"
        #expect(catalog.adding(renamed).boards.count == catalog.boards.count)
        #expect(catalog.adding(renamed).board(id: "test-board")?.name == "Renamed")
    }
}

/// What a board file's bytes can hold that no dictionary can: a key twice, a control character.
@Suite struct BoardFileTextTests {
    static func text(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func aKeyTwiceIsRefused() throws {
        let valid = try Self.text(BoardFixtures.validBoardObject())
        let twice = valid.replacingOccurrences(of: "{\"i2cBuses\"", with: "{\"name\":\"Other\",\"i2cBuses\"")
        #expect(twice != valid)
        do throws(BoardFileError) {
            _ = try BoardCatalog.parseBoard(Data(twice.utf8), file: "test-board.json")
            Issue.record("a file with name twice was read")
        } catch {
            #expect(error.kind == .invalidJSON && error.problem.contains("\"name\" appears twice"), "\(error)")
        }
    }

    @Test(arguments: ["\u{1B}[31mRed", "Bell\u{07}", "Two\nlines"])
    func aControlCharacterInAStringIsRefused(name: String) throws {
        let data = Data(try Self.text(BoardFixtures.setting(BoardFixtures.validBoardObject(), "name", name)).utf8)
        do throws(BoardFileError) {
            _ = try BoardCatalog.parseBoard(data, file: "test-board.json")
            Issue.record("\(name.debugDescription) was read")
        } catch {
            #expect(error.keyPath == "name" && error.problem.contains("control character"), "\(error)")
            #expect(!"\(error)".unicodeScalars.contains { $0.properties.generalCategory == .control })
        }
    }
}
