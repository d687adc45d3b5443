import Foundation
import Motion
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A calibration that would turn every reading into garbage is refused on save and on load, the
/// error naming the file, the field and the bound; the store's read-modify-write is locked across
/// processes and cleans up after dead writers.
@Suite struct CalibrationPlausibilityTests: CalibrationStoreSuite {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("swift-motion-plausible-\(UUID().uuidString)")

    func plausible() -> CalibrationRecord {
        var plausible = record(softIron: [1, 0.05, 0, 0.05, 1.1, 0, 0, 0, 0.9])
        plausible.accelerometer = CalibrationRecord.Accelerometer(offset: SIMD3(0.01, -0.02, 0.03), scale: SIMD3(1.01, 0.99, 1))
        return plausible
    }

    /// Each a way a record can be implausible, and the field its error names.
    enum Damage: CaseIterable, Sendable {
        case hugeGyroBias, largeGyroBias, accelerometerOffset, accelerometerScale, hardIron
        case zeroSoftIron, rankDeficientSoftIron, mirroredSoftIron, illConditionedSoftIron, noField

        var field: String {
            switch self {
            case .hugeGyroBias, .largeGyroBias: "gyroscope.bias"
            case .accelerometerOffset: "accelerometer.offset"
            case .accelerometerScale: "accelerometer.scale"
            case .hardIron: "magnetometer.hardIronOffset"
            case .zeroSoftIron, .rankDeficientSoftIron, .mirroredSoftIron, .illConditionedSoftIron: "magnetometer.softIronMatrix"
            case .noField: "magnetometer.fieldStrength"
            }
        }

        func apply(_ r: inout CalibrationRecord) {
            switch self {
            case .hugeGyroBias: r.gyroscope?.bias = [1e308, 0, 0]
            case .largeGyroBias: r.gyroscope?.bias = [0, -0.5, 0]
            case .accelerometerOffset: r.accelerometer?.offset = [0, 0, 1]
            case .accelerometerScale: r.accelerometer?.scale = [1, 1, 3]
            case .hardIron: r.magnetometer?.hardIronOffset = [1e5, 0, 0]
            case .zeroSoftIron: r.magnetometer?.softIronMatrix = [0, 0, 0, 0, 0, 0, 0, 0, 0]
            case .rankDeficientSoftIron: r.magnetometer?.softIronMatrix = [1, 0, 0, 0, 1, 0, 0, 0, 0]
            case .mirroredSoftIron: r.magnetometer?.softIronMatrix = [-1, 0, 0, 0, 1, 0, 0, 0, 1]
            case .illConditionedSoftIron: r.magnetometer?.softIronMatrix = [20, 0, 0, 0, 1, 0, 0, 0, 1]
            case .noField: r.magnetometer?.fieldStrength = 0
            }
        }
    }

    @Test(arguments: Damage.allCases)
    func implausibleValuesAreRefusedOnSaveAndLoad(damage: Damage) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let field = damage.field
        var record = plausible()
        damage.apply(&record)
        let onSave = try #require(throws: CalibrationStoreError.self) { try store.save(record) }
        #expect(onSave.detail.contains(field), "\(onSave)")
        // Written by hand (or by an older version): refused on load, naming the file and the field.
        try store.save(plausible())
        let path = store.url(for: sensor).path
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(record).write(to: URL(fileURLWithPath: path))
        let onLoad = try #require(throws: CalibrationStoreError.self) { _ = try store.load(sensor) }
        #expect(onLoad.path == path && onLoad.detail.contains(field), "\(onLoad)")
    }

    @Test func aPlausibleRecordIsKept() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.save(plausible())
        #expect(try store.load(sensor) == plausible())
    }

    /// Two processes update the gyroscope and the accelerometer sections of one record 200 times
    /// each, at once; each checks before every update that its section still holds its last
    /// write. Without the lock about half the updates were lost (measured: 141 and 148 of 300).
    @Test func concurrentUpdatesFromTwoProcessesKeepBothSections() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.path
        let processes = try ["gyroscope", "accelerometer"].map { section in
            let process = Process()
            process.executableURL = try BoardsCommandTestsSupport.motionctl()
            process.arguments = ["calibration", "stress-update", "--section", section, "--count", "200"]
            process.environment = environment
            try process.run()
            return process
        }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 }, "an update was lost")
        let store = CalibrationStore(directory: directory.appendingPathComponent("swift-motion/calibration"))
        let record = try #require(try store.load(SensorIdentity(board: "stress", chip: "TEST", bus: "stress", address: 0x43)))
        #expect(record.gyroscope?.sampleCount == 200)
        #expect(record.accelerometer?.offset.first.map { abs($0 - 0.02) < 1e-12 } == true)
    }

    @Test func temporariesOfDeadWritersAreRemovedByTheNextUpdate() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A pid that cannot be alive (above the kernel's pid_max limit of 2^22) and our own.
        let dead = directory.appendingPathComponent(".\(sensor.fileName).4194305.\(UUID().uuidString).tmp").path
        let ours = directory.appendingPathComponent(".\(sensor.fileName).\(getpid()).\(UUID().uuidString).tmp").path
        for path in [dead, ours] { #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8))) }
        try store.update(sensor) { $0.gyroscope = CalibrationRecord.Gyroscope(bias: .zero, sampleCount: 1) }
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: ours), "a live writer's temporary stays")
    }
}

/// The built `motionctl` next to the test bundle (MotionTests cannot see MotionctlTests' helper).
enum BoardsCommandTestsSupport {
    static func motionctl() throws -> URL { try builtExecutable("motionctl") }
}
