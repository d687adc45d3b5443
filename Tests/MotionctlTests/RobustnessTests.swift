@testable import motionctl
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// No input traps, write errors are errors, a closed pipe ends quietly.
@Suite struct RobustnessTests {
    /// Every numeric option of every command, with values at and beyond every edge: each is
    /// accepted or refused with a usage error; none traps (a trap would end this test process).
    @Test func extremeValuesOfEveryNumericOptionAreRefusedOrAcceptedNeverATrap() throws {
        let values = ["0", "-0", "1e-300", "-1", "1e308", "nan", "inf", "-inf", "9223372036854775807", "9223372036854775808",
                      "-9223372036854775808", "18446744073709551616", "", "abc", "0x10", "1e17"]
        let options: [[String]] = [
            ["stream", "--rate"], ["stream", "--count"], ["stream", "--duration"], ["live", "--duration"], ["live", "--refresh"],
            ["orientation", "--duration"], ["record", "--rate"], ["record", "--duration"], ["calibrate", "gyroscope", "--duration"],
            ["calibrate", "magnetometer", "--duration"], ["calibrate", "accelerometer", "--duration"], ["stream", "--seed"],
        ]
        var refused = 0
        for option in options {
            for value in values {
                do {
                    _ = try Motionctl.parseAsRoot(option + [value])
                } catch {
                    refused += 1
                    let message = Motionctl.message(for: error)
                    // A refusal names the option (or says the value is missing/invalid), never "Missing value" for a number.
                    #expect(message.contains(option.last ?? "") || message.contains("--") , "\(option) \(value): \(message)")
                }
            }
        }
        #expect(refused >= options.count * 10)
        // Negative numbers are read as values and refused with the range, not as unknown flags.
        let negative = Motionctl.message(for: try #require(throws: (any Error).self) { try Motionctl.parseAsRoot(["stream", "--rate", "-1"]) })
        #expect(negative.contains("--rate must be a number from 1/86400 to 100 Hz, not -1.0"), "\(negative)")
        let huge = Motionctl.message(for: try #require(throws: (any Error).self) { try Motionctl.parseAsRoot(["stream", "--count", "9223372036854775807"]) })
        #expect(huge.contains("--count must be a whole number from 1 to 1000000000000"), "\(huge)")
    }

    /// Runs `command` with `sh -c`, motionctl on the PATH.
    static func shell(_ command: String) throws -> (status: Int32, output: String, error: String) {
        let folder = try BoardsCommandTests.motionctl().deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("robustness-\(UUID())").path
        return try runToEnd(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: environment)
    }

    /// /dev/full answers every write with ENOSPC; a container may lack it (.ci/run makes it).
    static func deviceFullExists() -> Bool {
        var status = stat()
        return stat("/dev/full", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
    }

    @Test func aFullDiskIsAnErrorNamingTheFile() throws {
        // A file size limit makes any disk "full" for this process (EFBIG): the recording fails,
        // names the file, and leaves no half-written file behind.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("limited-\(UUID()).csv").path
        let limited = try Self.shell("ulimit -f 1; trap '' XFSZ; exec motionctl record --simulated --duration 10 --output \(path)")
        #expect(limited.status == 1 && limited.error.contains("error: cannot write \(path): File too large"), "\(limited)")
        #expect(!FileManager.default.fileExists(atPath: path))
        let folder = (path as NSString).deletingLastPathComponent
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains("limited-") }
        #expect(leftovers.isEmpty, "\(leftovers)")

        guard Self.deviceFullExists() else { return }
        let record = try Self.shell("motionctl record --simulated --duration 1 --output /dev/full")
        #expect(record.status == 1 && record.error.contains("cannot write /dev/full: No space left on device"), "\(record)")
        let stream = try Self.shell("motionctl stream --simulated --count 100 > /dev/full")
        #expect(stream.status == 1 && stream.error.contains("cannot write standard output: No space left on device"), "\(stream)")
        let boards = try Self.shell("motionctl boards > /dev/full")
        #expect(boards.status == 1 && boards.error.contains("cannot write standard output"), "\(boards)")
    }

    @Test func aClosedPipeEndsTheStreamQuietly() throws {
        let result = try Self.shell("motionctl stream --simulated --real-time | head -1; echo \"status ${PIPESTATUS:-}\"")
        #expect(result.output.hasPrefix("timestamp_s,"))
        #expect(result.error.isEmpty, "\(result.error)")
        let status = try Self.shell("motionctl stream --simulated --real-time | head -1 > /dev/null; exit 0")
        #expect(status.error.isEmpty)
    }
}
