import Foundation
import TestSupport
import Testing
@testable import motion_lab

#if canImport(Glibc)
import Glibc
#endif

/// `motion-lab` as a person runs it: its commands listed, its numeric options refused or accepted
/// and never a trap, and a failing standard stream an error with a message where a stream still
/// works (statuses 132/133/134/139 are SIGILL/SIGTRAP/SIGABRT/SIGSEGV: a Swift trap or a crash).
@Suite struct MotionLabCommandTests {
    static func motionLab() throws -> URL { try builtExecutable("motion-lab") }

    /// Runs `command` with `sh -c`, motion-lab on the PATH, with a calibration store of its own.
    static func shell(_ command: String) throws -> (status: Int32, output: String, error: String) {
        let folder = try motionLab().deletingLastPathComponent().path
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["XDG_CONFIG_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("motion-lab-\(UUID())").path
        return try runToEnd(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: environment, timeout: 300)
    }

    @Test func helpListsBothCommands() throws {
        let help = try runToEnd(try Self.motionLab(), ["--help"])
        #expect(help.status == 0, "\(help)")
        #expect(help.output.contains("evaluate") && help.output.contains("background-check"), "\(help.output)")
    }

    /// One seed of a short run: the table's header, one row, the summary lines.
    @Test func backgroundCheckPrintsItsTable() throws {
        let result = try runToEnd(try Self.motionLab(), ["background-check", "--seeds", "1", "--judge-from", "1", "--duration", "2"], timeout: 300)
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("| seed | hard iron (µT) |") == true, "\(result.output)")
        #expect(lines.contains { $0.hasPrefix("| 1 | (") }, "\(result.output)")
        #expect(result.output.contains("over 1 seeds (ordinary-handling, judged from 1.0 s to 2 s)"), "\(result.output)")
    }

    /// A store that lies: `--stored-error` starts each seed from a record that far off and says
    /// when it was found out and relearned; a malformed one is a usage error naming it.
    @Test func backgroundCheckRunsAStoreThatLies() throws {
        let result = try runToEnd(
            try Self.motionLab(), ["background-check", "--seeds", "1", "--judge-from", "1", "--duration", "2", "--stored-error", "1000,0,0"],
            timeout: 300)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("a stored record (1000.0, 0.0, 0.0) µT off, claiming high: found out (accuracy low or below) in 1 of 1 seeds"),
                "\(result.output)")
        let refused = try runToEnd(try Self.motionLab(), ["background-check", "--stored-error", "1,2"], timeout: 60)
        #expect(refused.status != 0)
        #expect(refused.error.contains("--stored-error"), "\(refused.error)")
    }

    /// Every numeric option of `evaluate`, with values at and beyond every edge: each is accepted
    /// or refused with a usage error naming an option; none traps (a trap would end this process).
    @Test func extremeValuesOfEvaluatesNumericOptionsAreRefusedOrAcceptedNeverATrap() throws {
        let values = ["0", "-0", "1e-300", "-1", "1e308", "nan", "inf", "-inf", "9223372036854775807", "9223372036854775808",
                      "", "abc", "0x10", "1e17"]
        let folder = NSTemporaryDirectory()
        var refused = 0
        for option in ["--sensor-latency", "--rate", "--magnetometer-lag"] {
            for value in values {
                do {
                    _ = try MotionLab.parseAsRoot(["evaluate", "--data", folder, "--out", folder, option, value])
                } catch {
                    refused += 1
                    let message = MotionLab.message(for: error)
                    #expect(message.contains(option) || message.contains("--"), "\(option) \(value): \(message)")
                }
            }
        }
        #expect(refused >= 3 * 8)
        let negative = MotionLab.message(for: try #require(throws: (any Error).self) {
            try MotionLab.parseAsRoot(["evaluate", "--data", folder, "--out", folder, "--rate", "-1"])
        })
        #expect(negative.contains("--rate must be a number from 1 to 10000 Hz, not -1.0"), "\(negative)")
    }

    enum Mode: String, Sendable, CaseIterable {
        case outputFull = "> /dev/full"
        case outputClosed = ">&-"
        case errorFull = "2> /dev/full"
    }

    /// How to run each command so it writes to standard output, and so it writes to standard error.
    static let commands: [(output: [String], error: [String])] = [
        (["evaluate", "--data", "/no/such/folder"], ["evaluate", "--data", "/no/such/folder"]),
        (["background-check", "--seeds", "1", "--judge-from", "1", "--duration", "2"], ["background-check", "--seeds", "0"]),
        (["--help"], ["--no-such-option"]),
        (["--version"], ["--no-such-version-option"]),
    ]

    static let trapStatuses: Set<Int32> = [128 + SIGILL, 128 + SIGTRAP, 128 + SIGABRT, 128 + SIGSEGV, 128 + SIGBUS]

    @Test(arguments: 0..<commands.count, Mode.allCases)
    func aFailingStandardStreamIsAnErrorNeverATrap(index: Int, mode: Mode) throws {
        var status = stat()
        let deviceFullExists = stat("/dev/full", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR
        if mode != .outputClosed, !deviceFullExists { return }   // .ci/run makes /dev/full where a container lacks it
        let arguments = mode == .errorFull ? Self.commands[index].error : Self.commands[index].output
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try Self.shell("exec motion-lab \(quoted) \(mode.rawValue)")
        #expect(result.status != 0, "\(arguments) \(mode.rawValue): exit 0 — \(result.error)")
        #expect(!Self.trapStatuses.contains(result.status), "\(arguments) \(mode.rawValue): trapped (\(result.status)) — \(result.error)")
        switch mode {
        case .outputFull, .outputClosed:
            #expect(result.error.contains("error:") || result.error.contains("Error:"), "\(arguments) \(mode.rawValue): \(result.error)")
        case .errorFull:
            #expect(result.output.contains("error: cannot write standard error"), "\(arguments) \(mode.rawValue): \(result.output)")
        }
    }
}
