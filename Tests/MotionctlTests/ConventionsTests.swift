@testable import motionctl
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The conventions every command keeps (docs/motionctl.md): Ctrl-C ends any command the same way,
/// escape sequences only on a terminal (never in a pipe, never with TERM=dumb), colour never with
/// NO_COLOR, and machine-readable output in ASCII with enums by name.
@Suite("motionctl conventions", .serialized)
struct ConventionsTests {
    typealias PseudoTerminal = CalibrateTerminalTests.PseudoTerminal
    let terminalTests = CalibrateTerminalTests()
    var home: URL { terminalTests.home }

    func start(_ terminal: PseudoTerminal, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        try terminalTests.start(terminal, arguments, environment: extra)
    }

    /// Each command, running in real time in a terminal, gets SIGINT (Ctrl-C), SIGTERM
    /// (`systemctl stop`) or SIGHUP (the terminal closed) once it has shown `shown`: it exits 128 +
    /// the signal, says `interrupted: …` (naming SIGTERM and SIGHUP), and leaves the terminal as it
    /// found it.
    @Test(arguments: [
        (["live", "--simulated"], "counters"),
        (["stream", "--simulated", "--real-time"], "timestamp_s,"),
        (["orientation", "--scenario", "six-faces", "--real-time"], "→"),
        (["record", "--simulated", "--real-time", "--duration", "600"], "# motionctl record"),
        (["calibrate", "gyroscope", "--simulated", "--real-time", "--duration", "600"], "measuring"),
        (["calibrate", "accelerometer", "--simulated", "--real-time", "--duration", "600"], "now:"),
        (["calibrate", "magnetometer", "--simulated", "--real-time", "--duration", "600"], "Coverage ["),
        (["serve", "--simulated", "--port", "0"], "Ctrl-C to stop"),
        (["ros2", "--simulated", "--domain-id", "231"], "Ctrl-C ends"),
    ], [SIGINT, SIGTERM, SIGHUP])
    func signalsEndEveryCommandTheSameWay(command: ([String], String), signal: Int32) throws {
        let (arguments, shown) = command
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try start(terminal, arguments)
        #expect(terminal.read { $0.contains(shown) }, "\(arguments): \(terminal.screen)")
        kill(process.processIdentifier, signal)
        terminal.waitForExit(process)
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal, "\(arguments) \(signal): \(terminal.screen)")
        let said = [SIGTERM: "interrupted (SIGTERM): ", SIGHUP: "interrupted (SIGHUP): "][signal] ?? "interrupted: "
        #expect(terminal.screen.contains(said), "\(arguments) \(signal): \(terminal.screen)")
        #expect(terminal.isCooked, "\(arguments): the terminal was not restored")
        #expect(!terminal.screen.contains("Saved to"))
    }

    static func isASCII(_ text: String) -> Bool { text.unicodeScalars.allSatisfy { $0.isASCII } }

    /// Runs motionctl with standard output to a pipe.
    func piped(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.path
        environment.merge(extra) { $1 }
        return try BoardsCommandTests.run(arguments, environment: environment)
    }

    /// A background calibration that cannot be saved (here a file where the store's folder
    /// should be) is said at the end of the run, with the path and the fix, not passed over.
    @Test func aFailedBackgroundSaveIsSaid() throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-folder-\(UUID())")
        try Data("x".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let result = try BoardsCommandTests.run(
            ["stream", "--device-motion", "--scenario", "ordinary-handling", "--duration", "60", "--rate", "10"],
            environment: ProcessInfo.processInfo.environment.merging(["XDG_CONFIG_HOME": blocker.path]) { $1 })
        #expect(result.status == 0, "\(result.error)")
        #expect(result.error.contains("warning: the background magnetometer calibration was not saved: \(blocker.path)/swift-motion"), "\(result.error)")
    }

    @Test func pipesGetNoEscapeSequences() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        for arguments in [
            ["calibrate", "magnetometer", "--simulated"], ["calibrate", "gyroscope", "--simulated"],
            ["calibrate", "accelerometer", "--simulated"], ["live", "--simulated", "--duration", "1.5"],
        ] {
            let result = try piped(arguments)
            #expect(!result.output.isEmpty, "\(arguments)")
            #expect(!result.output.contains("\u{1B}"), "\(arguments): \(result.output.prefix(400))")
        }
    }

    @Test func colourOnlyOnATerminalWithoutNoColorAndNothingForADumbTerminal() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        func screen(_ environment: [String: String]) throws -> String {
            let terminal = try PseudoTerminal()
            let process = try start(terminal, ["calibrate", "accelerometer", "--simulated"], environment: environment)
            terminal.waitForExit(process)
            #expect(process.terminationStatus == 0, "\(terminal.screen)")
            return terminal.screen
        }
        let colored = try screen(["TERM": "xterm"])
        #expect(colored.contains("\u{1B}[34m  measured faceUp"))
        let noColor = try screen(["TERM": "xterm", "NO_COLOR": "1"])
        #expect(noColor.contains("  measured faceUp") && !noColor.contains("\u{1B}[34m"))
        #expect(noColor.contains("\u{1B}[2K"), "a terminal still redraws in place")
        let dumb = try screen(["TERM": "dumb"])
        #expect(dumb.contains("  measured faceUp") && !dumb.contains("\u{1B}"))
    }

    @Test func machineReadableOutputIsASCIIWithEnumsByName() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let csv = try piped(["stream", "--simulated", "--device-motion", "--count", "20"])
        #expect(csv.status == 0)
        #expect(Self.isASCII(csv.output))
        let lines = csv.output.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let header = try #require(lines.first)
        #expect(lines.count == 21 && lines.dropFirst().allSatisfy { $0.count == header.count })
        let accuracy = try #require(header.firstIndex(of: "mag_accuracy"))
        let state = try #require(header.firstIndex(of: "mag_cal_state"))
        #expect(lines.dropFirst().allSatisfy { ["", "calibrated", "learning", "needsRotation", "disturbed", "relearning"].contains($0[state]) })
        #expect(lines.dropFirst().allSatisfy { ["uncalibrated", "low", "medium", "high"].contains($0[accuracy]) })
        // Every other cell is a number with 6 decimals (timestamps 9) or empty.
        for row in lines.dropFirst() {
            for (column, cell) in zip(header, row) where column != "mag_accuracy" && column != "mag_cal_state" && !cell.isEmpty {
                let decimals = cell.split(separator: ".").last?.count
                #expect(Double(cell) != nil && decimals == (column.hasSuffix("timestamp_s") ? 9 : 6), "\(column)=\(cell)")
            }
        }

        let jsonl = try piped(["stream", "--simulated", "--device-motion", "--count", "5", "--format", "jsonl"])
        #expect(Self.isASCII(jsonl.output))
        for line in jsonl.output.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["mag_accuracy"] as? String == "uncalibrated")
            #expect(object["qw"] is NSNumber)
        }

        let calibration = try piped(["calibrate", "magnetometer", "--simulated", "--non-interactive"])
        #expect(Self.isASCII(calibration.output), "\(calibration.output)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(calibration.output.utf8)) as? [String: Any])
        #expect(["uncalibrated", "low", "medium", "high"].contains(result["accuracy"] as? String ?? ""))
        #expect((result["missingDirections"] as? [String])?.allSatisfy { Self.isASCII($0) } == true)

        let record = try piped(["record", "--simulated", "--duration", "0.1"])
        #expect(record.status == 0 && Self.isASCII(record.output))
    }
}

/// One spelling of the options every command shares, and a version.
@Suite struct SharedOptionTests {
    @Test func versionAndBoardEverywhere() throws {
        let version = try BoardsCommandTests.run(["--version"])
        #expect(version.status == 0 && version.output.hasPrefix("swift-motion "))
        // doctor takes --board ID|FILE like every other command (it fails here only for want of I2C).
        let doctor = try BoardsCommandTests.run(["doctor", "--board", "raspberry-pi-4b"])
        #expect(doctor.output.contains("[ok] board: Raspberry Pi 4 Model B (raspberry-pi-4b), as named with --board"), "\(doctor.output)")
        let unknown = try BoardsCommandTests.run(["doctor", "--board", "commodore-64"])
        #expect(unknown.status == 1 && unknown.error.contains("raspberry-pi-5"))
        for command in [["live"], ["stream"], ["orientation"], ["record"], ["selftest"], ["calibrate", "gyroscope"], ["doctor"]] {
            let help = try BoardsCommandTests.run(["help"] + command)
            #expect(help.output.contains("--board <board>"), "\(command) has no --board")
        }
    }

    /// A live line wider than the terminal is cut (a wrapped line breaks the redraw); colour
    /// escapes take no room and are never cut in half.
    @Test func liveLinesAreCutToTheTerminalWidthCountingOnlyVisibleCharacters() {
        #expect(LiveDisplay.cut("abcdefgh", toWidth: 5) == "abcd…")
        #expect(LiveDisplay.cut("abcd", toWidth: 5) == "abcd")
        let colored = "\u{1B}[34m####\u{1B}[0m....."
        #expect(LiveDisplay.cut(colored, toWidth: 20) == colored)
        #expect(LiveDisplay.cut(colored, toWidth: 6) == "\u{1B}[34m####\u{1B}[0m.…\u{1B}[0m")
    }

    /// The live view's rate: nothing until a whole second is seen, then samples over the last
    /// second or more, steady whatever the refresh timing.
    @Test func liveRateIsMeasuredOverASlidingSecond() {
        let meter = RateMeter()
        #expect(meter.update(sampled: 0, at: 0) == nil)
        #expect(meter.update(sampled: 10, at: 0.1) == nil)
        var rates: [Double] = []
        var sampled = 10
        for step in 2...40 {
            // Refreshes 0.1 s apart with 9, 11, 9, 11 … samples in between (timer wake-ups).
            sampled += step % 2 == 0 ? 9 : 11
            if let rate = meter.update(sampled: sampled, at: Double(step) / 10) { rates.append(rate) }
        }
        #expect(rates.count == 31)   // from t = 1.0 s to 4.0 s
        #expect(rates.allSatisfy { abs($0 - 100) <= 1.01 }, "\(rates)")
    }
}
