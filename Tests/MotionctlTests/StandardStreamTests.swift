import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Every command writing into a full disk (`/dev/full`), into a closed standard output, and with
/// a full standard error: a non-zero exit with a message where a stream still works, never a trap
/// (statuses 132/133/134/139 are SIGILL/SIGTRAP/SIGABRT/SIGSEGV: a Swift trap or a crash).
@Suite struct StandardStreamTests {
    /// One command: how to run it so it writes to standard output, and so it writes to standard
    /// error (a run with faults where the command reports them and would otherwise succeed, else
    /// a failing run). Simulated board, virtual time or short durations: the table runs in seconds.
    struct Command: Sendable, CustomTestStringConvertible {
        var output: [String]
        var error: [String]
        var testDescription: String { output.prefix(2).joined(separator: " ") }
    }

    /// The repository's own board file, for `boards validate`.
    static let boardFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("boards/raspberry-pi-4b.json").path

    static let faults = ["--faults", "imu:vanish+0.3@0.2"]

    static let commands: [Command] = [
        Command(output: ["live", "--simulated", "--duration", "1"], error: ["live", "--duration", "-1"]),
        Command(output: ["stream", "--simulated", "--count", "50"], error: ["stream", "--simulated", "--duration", "1"] + faults),
        Command(output: ["record", "--simulated", "--duration", "0.5"], error: ["record", "--simulated", "--duration", "1"] + faults),
        Command(output: ["orientation", "--simulated"], error: ["orientation", "--simulated"] + faults),
        Command(output: ["probe", "--simulated"], error: ["probe", "--bus", "-1"]),
        Command(output: ["boards"], error: ["boards", "show", "no-such-board"]),
        Command(output: ["boards", "show", "raspberry-pi-4b"], error: ["boards", "show"]),
        Command(output: ["boards", "validate", boardFile], error: ["boards", "validate", "/no/such/board.json"]),
        Command(output: ["doctor"], error: ["doctor", "--no-such-option"]),
        Command(output: ["calibrate", "gyroscope", "--simulated", "--non-interactive"], error: ["calibrate", "gyroscope", "--duration", "-1"]),
        Command(output: ["calibrate", "accelerometer", "--simulated", "--non-interactive"], error: ["calibrate", "accelerometer", "--duration", "0"]),
        Command(
            output: ["calibrate", "magnetometer", "--simulated", "--non-interactive", "--duration", "5"],
            error: ["calibrate", "magnetometer", "--plot", ""]),
        Command(output: ["calibration", "show"], error: ["calibration", "clear", "no-such-sensor"]),
        Command(output: ["calibration", "clear", "--all"], error: ["calibration", "clear"]),
        Command(output: ["selftest", "--imu", "lsm6dsox"], error: ["selftest", "--imu", "no-such-imu"]),
        Command(output: ["serve", "--simulated", "--duration", "1", "--port", "0"], error: ["serve", "--port", "-5"]),
        Command(output: ["--help"], error: ["--no-such-option"]),
        Command(output: ["--version"], error: ["--no-such-version-option"]),
        Command(output: ["stream", "--help"], error: ["stream", "--rate", "0x10"]),
    ]

    enum Mode: String, Sendable, CaseIterable {
        case outputFull = "> /dev/full"
        case outputClosed = ">&-"
        case errorFull = "2> /dev/full"
    }

    /// `sh -c 'exec motionctl ARGS REDIRECTION'` with a store of its own.
    static func run(_ arguments: [String], _ mode: Mode) throws -> (status: Int32, output: String, error: String) {
        let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try RobustnessTests.shell("exec motionctl \(quoted) \(mode.rawValue)")
    }

    static let trapStatuses: Set<Int32> = [128 + SIGILL, 128 + SIGTRAP, 128 + SIGABRT, 128 + SIGSEGV, 128 + SIGBUS]

    @Test(arguments: commands, Mode.allCases)
    func aFailingStandardStreamIsAnErrorNeverATrap(command: Command, mode: Mode) throws {
        if mode != .outputClosed, !RobustnessTests.deviceFullExists() { return }
        let arguments = mode == .errorFull ? command.error : command.output
        let result = try Self.run(arguments, mode)
        #expect(result.status != 0, "\(arguments) \(mode.rawValue): exit 0 — \(result.error)")
        #expect(!Self.trapStatuses.contains(result.status), "\(arguments) \(mode.rawValue): trapped (\(result.status)) — \(result.error)")
        switch mode {
        case .outputFull, .outputClosed:
            // Said on standard error, which works (a command that failed for its own reason first says that).
            #expect(result.error.contains("error:") || result.error.contains("Error:"), "\(arguments) \(mode.rawValue): \(result.error)")
        case .errorFull:
            // Said on standard output, which works.
            #expect(result.output.contains("error: cannot write standard error"), "\(arguments) \(mode.rawValue): \(result.output)")
        }
    }

    /// Standard output closed before the command opens any file: the file it opens does not
    /// become its standard output (the recording goes to its file, the error names standard output).
    @Test func aClosedStandardOutputIsNotReplacedByTheNextFileOpened() throws {
        try withTemporaryDirectory("closed-stdout") { folder in
            let path = folder.appendingPathComponent("take.csv").path
            let result = try Self.run(["record", "--simulated", "--duration", "0.2", "--output", path], .outputClosed)
            #expect(result.status == 0, "\(result)")
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.hasPrefix("#") && !text.contains("samples written"), "\(text.prefix(200))")
        }
    }
}
