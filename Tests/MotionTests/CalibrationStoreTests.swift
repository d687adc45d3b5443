import FileAccess
import Foundation
import Motion
import MotionSimulation
import TestSupport
import Testing
import Timing

/// A suite about a calibration store of its own in a fresh temporary directory, and the sensor
/// its records are for.
protocol CalibrationStoreSuite {
    var directory: URL { get }
}

extension CalibrationStoreSuite {
    var store: CalibrationStore { CalibrationStore(directory: directory) }
    var sensor: SensorIdentity { SensorIdentity(board: "simulated", chip: "LIS3MDL", bus: "simulated", address: 0x1C) }

    /// A record of ``sensor`` with a gyroscope bias and the magnetometer fit `softIron` (row-major).
    func record(softIron: [Double]) -> CalibrationRecord {
        var record = CalibrationRecord(sensor: sensor, updated: Date(timeIntervalSince1970: 1_800_000_000))
        record.gyroscope = CalibrationRecord.Gyroscope(bias: SIMD3(0.01, -0.02, 0.003), sampleCount: 500)
        record.magnetometer = CalibrationRecord.Magnetometer(
            hardIronOffset: SIMD3(12, -30, 5), softIronMatrix: softIron,
            fieldStrength: 49.5, fitErrorPercent: 0.8, coveragePercent: 93, model: "ellipsoid", accuracy: "high")
        return record
    }
}

@Suite struct CalibrationStoreTests: CalibrationStoreSuite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swift-motion-store-\(UUID().uuidString)")

    func sample() -> CalibrationRecord { record(softIron: [1, 0, 0, 0, 1.1, 0, 0, 0, 0.9]) }

    @Test func savesAndLoadsTheSameRecord() throws {
        #expect(try store.load(sensor) == nil)
        let path = try store.save(sample())
        #expect(path.hasSuffix("simulated_LIS3MDL_simulated_0x1C.json"))
        #expect(try store.load(sensor) == sample())
        #expect(try store.all().map(\.record) == [sample()])
        // No temporary file is left behind (the writers' lock file stays: it holds no data).
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".lock") }
            == ["simulated_LIS3MDL_simulated_0x1C.json"])
        #expect(try store.clear(sensor))
        #expect(try store.load(sensor) == nil)
        #expect(try !store.clear(sensor))
    }

    /// A key twice in one object is refused, at any depth and however it is spelt (`\u0062ias`
    /// is `bias`), where JSONDecoder would keep one of the two silently.
    @Test(arguments: ["\"version\"", "\"bias\"", "\"\\u0062ias\""])
    func aKeyTwiceIsRefused(key: String) throws {
        let path = try store.save(sample())
        var text = try String(contentsOfFile: path, encoding: .utf8)
        if key == "\"version\"" {
            text = text.replacingOccurrences(of: "{", with: "{\n  \"version\" : 1,", options: [], range: text.range(of: "{"))
        } else {
            let bias = try #require(text.range(of: "\"bias\""))
            text.insert(contentsOf: key + " : [1, 2, 3], ", at: bias.lowerBound)
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try store.load(sensor)
            Issue.record("\(key) twice was read")
        } catch {
            #expect("\(error)".contains("twice"), "\(error)")
        }
    }

    @Test func duplicateKeysFoundAtAnyDepthAndOnlyInOneObject() {
        #expect(JSONDuplicateKeysProbe.first(#"{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}"#) == nil)
        #expect(JSONDuplicateKeysProbe.first(#"{"a": 1, "b": {"x": 2, "x": 3}}"#) == "x")
        #expect(JSONDuplicateKeysProbe.first(#"[{"k": "a\"b", "k": 1}]"#) == "k")
        #expect(JSONDuplicateKeysProbe.first(#"{"v": "a", "w": "a"}"#) == nil)
    }

    @Test func anUnknownMagnetometerAccuracyIsRefused() throws {
        var record = sample()
        record.magnetometer?.accuracy = "High"
        #expect(throws: CalibrationStoreError.self) { try store.save(record) }
    }

    @Test func aMissingStoreListsNothingButAnUnlistableOneIsAnError() throws {
        #expect(try store.all().isEmpty)
        // A file where the directory should be: an error, not "no calibrations".
        try Data("not a directory".utf8).write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: CalibrationStoreError.self) { try store.all() }
    }

    @Test func aDamagedFileIsAnErrorNamingItAndTheFix() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{ \"version\": 1, \"sensor\": ".utf8).write(to: store.url(for: sensor))
        do {
            _ = try store.load(sensor)
            Issue.record("expected an error")
        } catch {
            #expect(error.path == store.url(for: sensor).path)
            #expect(error.description.contains("motionctl calibration clear"))
        }
    }

    @Test func aRecordWithWrongShapesIsRefused() throws {
        var record = sample()
        record.magnetometer?.softIronMatrix = [1, 0, 0]
        #expect(throws: CalibrationStoreError.self) { try store.save(record) }
        #expect(try store.load(sensor) == nil)
    }

    /// The tests' own runs of the default store (every MotionManager() saves its background
    /// calibration there) never reach the user's: the test process's XDG_CONFIG_HOME is a
    /// temporary folder of its own (CTestIsolation).
    @Test func theTestsNeverUseTheUsersStore() {
        #expect(testConfigurationHome.hasPrefix("/tmp/swift-motion-tests-"))
        #expect(ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] == testConfigurationHome)
        #expect(CalibrationStore.userDefault().directory.path == testConfigurationHome + "/swift-motion/calibration")
    }

    @Test func defaultDirectoryFollowsXDG() {
        #expect(CalibrationStore.userDefault(environment: ["XDG_CONFIG_HOME": "/x"]).directory.path == "/x/swift-motion/calibration")
        #expect(CalibrationStore.userDefault(environment: ["HOME": "/home/pi"]).directory.path == "/home/pi/.config/swift-motion/calibration")
        #expect(CalibrationStore.userDefault(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/home/pi"]).directory.path
            == "/home/pi/.config/swift-motion/calibration")
    }

    /// A damaged IMU calibration stops the manager with the file and its fix, not with advice to
    /// calibrate the magnetometer.
    @Test func aDamagedStoredCalibrationNamesTheFileAndItsFix() throws {
        let imu = SensorIdentity(board: "simulated", chip: "LSM6DSO/LSM6DSOX", bus: "simulated", address: 0x6A)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("{".utf8).write(to: store.url(for: imu))
        do {
            _ = try MotionManager(source: .simulated(Simulation()), clock: VirtualClock(), calibrationStore: store)
            Issue.record("expected an error")
        } catch {
            guard case .calibrationNeeded = error else { Issue.record("got \(error)"); return }
            #expect(error.description.contains(store.url(for: imu).path))
            #expect(error.description.contains("motionctl calibration clear"))
            #expect(!error.description.contains("calibrate magnetometer"))
        }
    }
}

/// FileAccess' duplicate-key scan on a string (the test target reaches it through `Motion`'s users).
enum JSONDuplicateKeysProbe {
    static func first(_ text: String) -> String? { JSONDuplicateKeys.first(in: Array(text.utf8)) }
}
