import Foundation
import Locking
import Motion
import MotionSimulation
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
        // Issue #27 item 7: checked against physics as a whole.
        case rotationSoftIron, hugeSoftIron, tinySoftIron, negativeSampleCount, hugeFitError, accuracyAboveFitError
        case accuracyAboveCoverage, highAccuracyOffsetModel, unknownModel

        var field: String {
            switch self {
            case .hugeGyroBias, .largeGyroBias: "gyroscope.bias"
            case .accelerometerOffset: "accelerometer.offset"
            case .accelerometerScale: "accelerometer.scale"
            case .hardIron: "magnetometer.hardIronOffset"
            case .zeroSoftIron, .rankDeficientSoftIron, .mirroredSoftIron, .illConditionedSoftIron: "magnetometer.softIronMatrix"
            case .rotationSoftIron: "must be symmetric"
            case .hugeSoftIron, .tinySoftIron: "magnetometer.fieldStrength"   // the scale is checked against it
            case .noField: "magnetometer.fieldStrength"
            case .negativeSampleCount: "gyroscope.sampleCount -5 must lie within 0…"
            case .hugeFitError: "magnetometer.fitErrorPercent 1e+308 must lie within 0…100"
            case .accuracyAboveFitError: "magnetometer.accuracy high needs magnetometer.fitErrorPercent ≤ 2 %, not 50.0 %"
            case .accuracyAboveCoverage: "magnetometer.accuracy medium needs magnetometer.coveragePercent ≥ 50 %"
            case .highAccuracyOffsetModel: "magnetometer.model ellipsoid or diagonal"
            case .unknownModel: "magnetometer.model \"sphere\" must be one of"
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
            case .rotationSoftIron:   // 60° about z: turns every heading
                let (c, s) = (cos(Double.pi / 3), sin(Double.pi / 3))
                r.magnetometer?.softIronMatrix = [c, -s, 0, s, c, 0, 0, 0, 1]
            case .hugeSoftIron: r.magnetometer?.softIronMatrix = [1e300, 0, 0, 0, 1e300, 0, 0, 0, 1e300]
            case .tinySoftIron: r.magnetometer?.softIronMatrix = [1e-10, 0, 0, 0, 1e-10, 0, 0, 0, 1e-10]
            case .negativeSampleCount: r.gyroscope?.sampleCount = -5
            case .hugeFitError: r.magnetometer?.fitErrorPercent = 1e308
            case .accuracyAboveFitError: r.magnetometer?.fitErrorPercent = 50
            case .accuracyAboveCoverage:
                r.magnetometer?.accuracy = "medium"
                r.magnetometer?.coveragePercent = 20
            case .highAccuracyOffsetModel: r.magnetometer?.model = "offset"
            case .unknownModel: r.magnetometer?.model = "sphere"
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

    /// A record whose sensor is not the one its file names (copied from another address or chip)
    /// is refused when loaded for that sensor, and when the store is listed.
    @Test(arguments: [("sensor.address", 0x1E as UInt8, "LIS3MDL"), ("sensor.chip", 0x1C as UInt8, "LIS2MDL")])
    func aRecordOfAnotherSensorIsRefused(field: String, address: UInt8, chip: String) throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.save(plausible())
        var other = plausible()
        other.sensor = SensorIdentity(board: sensor.board, chip: chip, bus: sensor.bus, address: address)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let path = store.url(for: sensor).path
        try encoder.encode(other).write(to: URL(fileURLWithPath: path))
        let onLoad = try #require(throws: CalibrationStoreError.self) { _ = try store.load(sensor) }
        #expect(onLoad.path == path && onLoad.detail.contains(field) && onLoad.detail.contains("belongs to another sensor"), "\(onLoad)")
        let onList = try #require(throws: CalibrationStoreError.self) { _ = try store.all() }
        #expect(onList.path == path && onList.detail.contains(other.sensor.fileName), "\(onList)")
    }

    /// What the fit saves is always accepted: its accuracy, fit error, coverage and soft-iron
    /// scale agree (the grading and the check share their thresholds).
    @Test(arguments: [(0.5, 95.0, "high", "ellipsoid"), (4.0, 60.0, "medium", "diagonal"), (8.0, 10.0, "low", "offset"), (40.0, 5.0, "uncalibrated", "offset")])
    func consistentMetadataIsAccepted(fitError: Double, coverage: Double, accuracy: String, model: String) throws {
        var record = plausible()
        record.magnetometer?.fitErrorPercent = fitError
        record.magnetometer?.coveragePercent = coverage
        record.magnetometer?.accuracy = accuracy
        record.magnetometer?.model = model
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.save(record)
        #expect(try store.load(sensor) == record)
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

    /// `clearAll` takes each record's lock, the writers' lock: while a writer holds it the record
    /// stays; a live writer's temporary file is never removed, a dead writer's is.
    @Test func clearingEverythingWaitsForWritersAndSparesTheirTemporaries() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try store.save(plausible())
        let record = store.url(for: sensor).path
        // A writer that is alive (a child process) and one that is dead (a pid above pid_max).
        let alive = Process()
        alive.executableURL = URL(fileURLWithPath: "/bin/sleep")
        alive.arguments = ["30"]
        try alive.run()
        defer { alive.terminate() }
        let live = directory.appendingPathComponent(".\(sensor.fileName).\(alive.processIdentifier).\(UUID().uuidString).tmp").path
        let dead = directory.appendingPathComponent(".\(sensor.fileName).4194305.\(UUID().uuidString).tmp").path
        for path in [live, dead] { #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8))) }
        // Hold the writers' lock as a save in progress does.
        let lock = open(directory.appendingPathComponent(".\(sensor.fileName).lock").path, O_RDWR | O_CREAT, 0o644)
        try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let cleared = Locked<[String]?>(nil)
        let store = store
        Thread.detachNewThread {
            let removed = try? store.clearAll()   // not under `cleared`'s lock: it waits for the flock
            cleared.withLock { $0 = removed }
        }
        usleep(300_000)
        #expect(FileManager.default.fileExists(atPath: record), "removed while a writer held the lock")
        #expect(cleared.withLock { $0 } == nil)
        close(lock)   // the save is done
        var waited = 0
        while cleared.withLock({ $0 }) == nil, waited < 600 {
            usleep(50_000)
            waited += 1
        }
        #expect(cleared.withLock { $0 } == [record])
        #expect(!FileManager.default.fileExists(atPath: record))
        #expect(FileManager.default.fileExists(atPath: live), "a live writer's temporary file was removed")
        #expect(!FileManager.default.fileExists(atPath: dead))
    }

    /// A save whose temporary file vanished before its rename says so, not "check the permissions".
    @Test func aVanishedTemporaryFileIsSaidAsIt() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Something that ignores the lock (`rm`) deletes temporary files as soon as they appear;
        // a save fsyncs before its rename, so within a few tries one loses its file.
        let store = store
        let stop = Locked(false)
        Thread.detachNewThread {
            while !stop.withLock({ $0 }) {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: store.directory.path)) ?? [] where name.hasSuffix(".tmp") {
                    unlink(store.directory.appendingPathComponent(name).path)
                }
            }
        }
        defer { stop.withLock { $0 = true } }
        var message: String?
        for _ in 0..<200 where message == nil {
            do { try store.save(plausible()) } catch { message = error.description }
        }
        let text = try #require(message, "no save lost its temporary file in 200 tries")
        #expect(text.contains("was removed while it was written") && !text.contains("permissions"), "\(text)")
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
