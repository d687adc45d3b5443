import CPseudoTerminal
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Drives the interactive `motionctl calibrate magnetometer --simulated` through a
/// pseudo-terminal: reads what the screen shows, presses a key, sends SIGINT. Waits are bounded
/// (they end when the text appears or after a minute); nothing asserts on time.
@Suite("motionctl calibrate in a terminal")
struct CalibrateTerminalTests {
    /// A pseudo-terminal pair; the child gets the slave side as stdin, stdout and stderr.
    final class PseudoTerminal {
        let master: Int32
        let slave: Int32
        private(set) var screen = ""

        init() throws {
            var path = [CChar](repeating: 0, count: 128)
            master = CPseudoTerminal_open(&path, path.count)
            guard master >= 0 else { throw POSIXError(.ENOTTY) }
            slave = open(String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw POSIXError(.ENOTTY) }
        }

        deinit {
            close(master)
            close(slave)
        }

        /// Reads what the program writes until `done(screen)` or a minute passed. (A bound in
        /// time, not in reads: a program that writes all the time, like `record`, fills the screen
        /// with one read per line.)
        @discardableResult
        func read(until done: (String) -> Bool) -> Bool {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                if done(screen) { return true }
                readAvailable(waitingMilliseconds: 100)
            }
            return done(screen)
        }

        /// One read of what the program wrote, after waiting up to `waitingMilliseconds` for it;
        /// whether there was anything.
        @discardableResult
        private func readAvailable(waitingMilliseconds: Int32) -> Bool {
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return false }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = Glibc.read(master, &buffer, buffer.count)
            if count > 0 { screen += String(decoding: buffer[0..<count], as: UTF8.self) }
            return count > 0
        }

        /// Keeps reading (so the program never blocks on a full terminal) until it exits, then
        /// reads what it wrote before it exited and is still in the terminal (its last lines:
        /// `interrupted: …` after a stream of samples on a loaded machine).
        func waitForExit(_ process: Process) {
            if !read(until: { _ in !process.isRunning }) {
                Issue.record("motionctl did not exit within a minute: \(screen)")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            while readAvailable(waitingMilliseconds: 50) {}
        }

        func send(_ text: String) {
            _ = text.utf8CString.withUnsafeBufferPointer { write(master, $0.baseAddress, text.utf8.count) }
        }

        /// Line editing and echo are on, as a shell leaves them.
        var isCooked: Bool {
            var settings = termios()
            guard tcgetattr(slave, &settings) == 0 else { return false }
            return settings.c_lflag & tcflag_t(ICANON) != 0 && settings.c_lflag & tcflag_t(ECHO) != 0
                && settings.c_lflag & tcflag_t(ISIG) != 0
        }
    }

    let home = FileManager.default.temporaryDirectory.appendingPathComponent("motionctl-terminal-\(UUID())")

    /// Starts motionctl on the terminal, its calibration store under `home`, with `extra` added
    /// to the environment (`NO_COLOR`, which a test runner may set, only when `extra` says so).
    /// `calibrate magnetometer` on the simulated board, once its live display shows coverage.
    func startLiveDisplay(_ terminal: PseudoTerminal, sourceLocation: SourceLocation = #_sourceLocation) throws -> Process {
        let process = try start(terminal, ["calibrate", "magnetometer", "--simulated", "--duration", "600"])
        #expect(terminal.read { $0.contains("Coverage [") }, "\(terminal.screen)", sourceLocation: sourceLocation)
        return process
    }

    func start(_ terminal: PseudoTerminal, _ arguments: [String], environment extra: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = try BoardsCommandTests.motionctl()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.path
        environment["NO_COLOR"] = nil
        environment.merge(extra) { $1 }
        process.environment = environment
        let handle = FileHandle(fileDescriptor: terminal.slave, closeOnDealloc: false)
        process.standardInput = handle
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// The last "Samples N" the live display showed.
    static func sampleCount(_ screen: String) -> Int {
        guard let range = screen.range(of: "Samples ", options: .backwards) else { return 0 }
        return Int(screen[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    @Test("the live display shows coverage, the map and the field; a key stops it and the report follows")
    func keyStopsEarly() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        // Turning in one plane only: coverage never gets good enough to stop by itself, so the
        // key press, however late it arrives on a busy machine, is what stops it.
        let process = try start(terminal, ["calibrate", "magnetometer", "--scenario", "landscape-sweep", "--duration", "600"])
        let sawProgress = terminal.read { Self.sampleCount($0) >= 1500 }
        #expect(sawProgress, "no live display: \(terminal.screen)")
        let screen = terminal.screen
        #expect(screen.contains("turn it slowly in figure-eights"))
        #expect(screen.contains("Press any key to stop early"))
        #expect(screen.contains("Coverage ["))
        #expect(screen.contains("regions)"))
        // One plane of turning never gives a fit that means something: no field strength yet.
        #expect(screen.contains("field (shown once the fit settles)"))
        #expect(screen.contains("Still to do: point each of these along the Earth's field"))
        #expect(screen.contains("Directions covered (# covered, . missing"))
        #expect(screen.contains("\u{1B}[2K"), "refreshes in place")
        terminal.send("q")
        let finished = terminal.read { $0.contains("Saved to") || $0.contains("Not saved") || $0.contains("error:") }
        terminal.waitForExit(process)
        #expect(finished, "\(terminal.screen)")
        let report = terminal.screen
        #expect(report.contains("stopped:         stopped by a key press"))
        #expect(report.contains("field strength:"))
        #expect(report.contains("coverage:"))
        #expect(report.contains("model:"))
        #expect(report.contains("accuracy:"))
        #expect(terminal.isCooked, "the terminal was not restored")
    }

    @Test("without a key, the display stops by itself once coverage and fit are good, and saves")
    func stopsByItself() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try start(terminal, ["calibrate", "magnetometer", "--simulated", "--duration", "600"])
        terminal.waitForExit(process)
        #expect(process.terminationStatus == 0, "\(terminal.screen)")
        let screen = terminal.screen
        #expect(screen.contains("stopped:         coverage and fit are good"))
        #expect(screen.contains("model:           fullEllipsoid"))
        #expect(screen.contains("(plausible for the Earth: 22–67 µT)"))
        #expect(screen.contains("Saved to \(home.path)/swift-motion/calibration/simulated_LIS3MDL_simulated_0x1C.json"))
        #expect(terminal.isCooked)
    }

    @Test("SIGINT during the live display restores the terminal and saves nothing")
    func interruptRestoresTheTerminal() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try startLiveDisplay(terminal)
        #expect(!terminal.isCooked, "keys are read one at a time while the display runs")
        kill(process.processIdentifier, SIGINT)
        terminal.waitForExit(process)
        #expect(process.terminationStatus == 128 + SIGINT)
        #expect(terminal.isCooked, "the terminal was not restored")
        #expect(!terminal.screen.contains("Saved to"))
        #expect(terminal.screen.contains("interrupted: nothing saved"))
    }

    @Test("Ctrl-C typed at the keyboard cancels without saving")
    func controlCCancels() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let terminal = try PseudoTerminal()
        let process = try startLiveDisplay(terminal)
        terminal.send("\u{03}")
        terminal.waitForExit(process)
        #expect(process.terminationStatus == 130)
        #expect(terminal.screen.contains("interrupted: nothing saved"))
        #expect(terminal.isCooked)
    }
}
