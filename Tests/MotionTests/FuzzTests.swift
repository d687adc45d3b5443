import FileAccess
import Foundation
import IIO
import IIOFake
@testable import Motion
import MotionSimulation
import MotionSimulator
import TestSupport
import Testing

/// A seeded mutation fuzzer over everything read from a file a person hands us: board files,
/// calibration records and recordings. Each seed (the built-in boards, a real calibration, a real
/// recording, and the corpus in `FuzzCorpus/`, files that once looked dangerous) is mutated
/// thousands of times — bytes flipped, cut, repeated, numbers swapped for extremes — and every
/// result must parse or be refused with the reader's typed error; none may trap (a trap ends this
/// test process). Deterministic: the same seed gives the same inputs every run.
@Suite struct FuzzTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let repository = folder.deletingLastPathComponent().deletingLastPathComponent()

    /// The tests' seeded generator (SampleTimeEstimatorTests): the same sequence everywhere.
    typealias Generator = FixedSeedNoise

    static let extremes = [
        "1e308", "-1e308", "1e400", "nan", "NaN", "inf", "-inf", "-0", "0", "4.9e-324", "9223372036854775807",
        "9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999999", "\"\"", "null",
        "[]", "{}", "0x", "0xFFFFFFFFFFFFFFFFF", "\"0x7F\"", "\"0x80\"", "-1", "1.5", "\"\\u0000\"",
    ]

    static func mutate(_ seed: [UInt8], _ random: inout Generator) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            guard !bytes.isEmpty else { return Array(extremes.randomElement(using: &random)!.utf8) }
            let at = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &random)))
            case 2: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 24)], at: at)
            case 3, 4:
                // A number (or a token) replaced by an extreme value.
                var end = at
                while end < bytes.count, "0123456789.-+eExabcdefABCDEF\"".utf8.contains(bytes[end]) { end += 1 }
                bytes.replaceSubrange(at..<end, with: Array(extremes.randomElement(using: &random)!.utf8))
            default: bytes = Array(bytes[0..<at])
            }
        }
        return bytes
    }

    static func seeds(_ suffix: String, in folders: [URL]) throws -> [[UInt8]] {
        try folders.flatMap { folder in
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter { $0.hasSuffix(suffix) }
                .map { [UInt8](try Data(contentsOf: folder.appendingPathComponent($0))) }
        }
    }

    /// Per reader: 5000 in every `swift test` (about a second); CI runs more through
    /// `SWIFT_MOTION_FUZZ_ITERATIONS` (.ci/run).
    static let iterations: Int = {
        let asked = ProcessInfo.processInfo.environment["SWIFT_MOTION_FUZZ_ITERATIONS"].flatMap { Int($0) } ?? 5000
        return min(max(asked, 1), 10_000_000)
    }()

    @Test func boardFilesNeverTrap() throws {
        let seeds = try Self.seeds(".json", in: [Self.repository.appendingPathComponent("boards"), Self.folder.appendingPathComponent("FuzzCorpus")])
            .filter { String(decoding: $0, as: UTF8.self).contains("\"id\"") }
        #expect(seeds.count >= 12)
        var random = Generator(seed: 1)
        var accepted = 0
        for index in 0..<Self.iterations {
            let input = Self.mutate(seeds[index % seeds.count], &random)
            do {
                _ = try BoardCatalog.parseBoard(Data(input), file: "fuzz.json")
                accepted += 1
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(accepted < Self.iterations)
    }

    @Test func calibrationRecordsNeverTrap() throws {
        let folder = try makeTemporaryDirectory("fuzz-calibration")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A real record as the first seed.
        let store = CalibrationStore(directory: folder)
        let sensor = SensorIdentity(board: "fuzz", chip: "LIS3MDL", bus: "/dev/i2c-1", address: 0x1C)
        try store.update(sensor) { record in
            record.gyroscope = CalibrationRecord.Gyroscope(bias: SIMD3(0.01, 0, -0.01), sampleCount: 500)
            record.accelerometer = CalibrationRecord.Accelerometer(offset: SIMD3(0.01, 0, 0), scale: SIMD3(1, 1.01, 0.99))
            record.magnetometer = CalibrationRecord.Magnetometer(
                hardIronOffset: SIMD3(10, -20, 5), softIronMatrix: [1, 0.02, 0, 0.02, 1.05, 0, 0, 0, 0.97], fieldStrength: 49,
                fitErrorPercent: 1, coveragePercent: 90, model: "ellipsoid", accuracy: "high")
        }
        let real = [UInt8](try Data(contentsOf: store.url(for: sensor)))
        let seeds = [real] + (try Self.seeds(".json", in: [Self.folder.appendingPathComponent("FuzzCorpus")])
            .filter { String(decoding: $0, as: UTF8.self).contains("\"version\"") })
        var random = Generator(seed: 2)
        let path = folder.appendingPathComponent("fuzz.json").path
        for index in 0..<Self.iterations {
            try Data(Self.mutate(seeds[index % seeds.count], &random)).write(to: URL(fileURLWithPath: path))
            do {
                let record = try CalibrationStore.read(path: path)
                #expect(record.validate() == nil)   // whatever is accepted is plausible
            } catch {
                #expect(error.path == path)
            }
        }
    }

    @Test func recordingsNeverTrap() throws {
        let flip = try #require(Scenario.named("flip"))
        let recorded = Recording.record(flip.world(), duration: 0.2, rate: 100)
        let seeds = [Array(recorded.csv().utf8)] + (try Self.seeds(".csv", in: [Self.folder.appendingPathComponent("FuzzCorpus")]))
        var random = Generator(seed: 3)
        for index in 0..<Self.iterations {
            let text = String(decoding: Self.mutate(seeds[index % seeds.count], &random), as: UTF8.self)
            do {
                let recording = try Recording(csv: text)
                _ = ReplaySource(recording).state(at: 0.05)
            } catch {
                #expect(!error.description.isEmpty)   // RecordingError: says what is wrong
            }
        }
    }

    /// IIO attributes (scales, offsets, mount matrices, sampling frequencies, readings) mutated
    /// from a real driver's values: discovery and reading never trap, and whatever is accepted
    /// is plausible. Each iteration rewrites five sysfs files: a fifth of the other readers' count.
    @Test func iioValuesNeverTrap() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (100, -200, 16384), gyro: (1, 2, 3)), as: "iio:device0")
        let seeds: [(attribute: String, value: String)] = [
            ("in_accel_scale", "0.000598"), ("in_anglvel_scale", "0.001064724"), ("in_accel_offset", "-20"),
            ("in_mount_matrix", "0, 1, 0; -1, 0, 0; 0, 0, 1"), ("sampling_frequency", "50"), ("in_accel_x_raw", "16384"),
        ]
        var random = Generator(seed: 4)
        for index in 0..<max(1, Self.iterations / 5) {
            let (attribute, value) = seeds[index % seeds.count]
            let mutated = String(decoding: Self.mutate(Array(value.utf8), &random), as: UTF8.self)
            try tree.set(attribute, of: "iio:device0", to: mutated)
            let (devices, problems) = IIODiscovery.devices(root: tree.sysfs)
            #expect(problems.allSatisfy { !$0.description.isEmpty })
            for group in devices.flatMap(\.groups) {
                // Accepted values are plausible (the check holds after parsing, whatever the text).
                if !group.processed {
                    for axis in 0..<3 {
                        #expect(throws: Never.self) { try IIOPlausibility.checkScale(group.scale[axis], kind: group.kind, path: "fuzz") }
                    }
                }
                #expect(throws: Never.self) { try IIOPlausibility.checkMount(group.mount, path: "fuzz") }
                if let reading = try? group.read() { #expect(reading.x.isFinite && reading.y.isFinite && reading.z.isFinite) }
                _ = try? group.samplingFrequency()
            }
            try tree.set(attribute, of: "iio:device0", to: value)
        }
    }

    /// Output paths built from pieces that once looked dangerous (a FIFO, a device, a link, a
    /// loop, a directory, empty parts, `..`, a name longer than the system allows): every write
    /// succeeds or says why; the FIFO, the device and the links are never replaced.
    @Test func outputPathsNeverTrap() throws {
        try withTemporaryDirectory("fuzz-output") { folder in
            let base = folder.path
            try #require(mkfifo("\(base)/fifo", 0o644) == 0)
            try #require(symlink("fifo", "\(base)/to-fifo") == 0)
            try #require(symlink("loop", "\(base)/loop") == 0)
            try #require(symlink("/dev/null", "\(base)/to-null") == 0)
            try FileManager.default.createDirectory(atPath: "\(base)/dir", withIntermediateDirectories: false)
            let pieces = ["fifo", "to-fifo", "loop", "to-null", "dir", "file", "", ".", "..", "new.svg", String(repeating: "n", count: 300), "/dev/null"]
            var random = Generator(seed: 5)
            for _ in 0..<max(1, Self.iterations / 10) {
                let count = Int.random(in: 1...3, using: &random)
                let parts = (0..<count).map { _ in pieces.randomElement(using: &random) ?? "" }
                let path = parts.first == "/dev/null" ? "/dev/null" : ([base] + parts).joined(separator: "/")
                do throws(OutputFile.Failure) {
                    try OutputFile.write(Array("x".utf8), to: path, what: "the fuzzed file")
                } catch {
                    #expect(!error.problem.isEmpty && !error.fix.isEmpty)
                }
                var status = stat()
                #expect(lstat("\(base)/fifo", &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
                #expect(lstat("\(base)/to-fifo", &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
                #expect(lstat("\(base)/to-null", &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
                #expect(lstat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
                #expect(lstat("\(base)/dir", &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
            }
        }
    }
}
