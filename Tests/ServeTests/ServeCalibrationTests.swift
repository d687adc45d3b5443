import Foundation
import Motion
import MotionSimulation
import MotionTools
import MotionServe
import TestSupport
import Testing
@testable import motionctl

/// The magnetometer calibration from the browser's endpoints, opened the way `motionctl serve`
/// opens it, against `motionctl calibrate magnetometer` (the built binary) on the same scenario
/// and seed.
@Suite("serve calibration", .serialized)
struct ServeCalibrationTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("motionctl-serve-\(UUID())")
    var store: CalibrationStore { CalibrationStore(directory: home.appendingPathComponent("swift-motion/calibration")) }

    /// What `motionctl serve --simulated --scenario figure-eight --seed 7` calibrates with (in
    /// virtual time, as fast as the machine goes, unless `realTime`).
    func access(scenario: String = "figure-eight", realTime: Bool = false) throws -> CalibrationAccess {
        let options = ["--scenario", scenario, "--seed", "7"] + (realTime ? ["--real-time"] : [])
        let opener = try ServeCommand.openers(SourceOptions.parse(options)).calibration
        return CalibrationAccess(store: store) {
            let opened = try opener.open()
            return try CalibrationFeed(manager: opened.manager, clock: opened.clock)
        }
    }

    /// Polls the state until it leaves `measuring` (the simulated figure-eight takes a few seconds;
    /// under the thread sanitizer, beside CI's other phases, it took over a minute once): a
    /// watchdog of 60 s, 5 min under the sanitizer.
    func finished(_ test: TestServer) async throws -> [String: Any] {
        for _ in 0..<(isThreadSanitized ? 3000 : 600) {
            let state = try json(try await test.request("GET", "/calibration/magnetometer").body)
            if state["phase"] as? String != "measuring" { return state }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw RawHTTP.Failure(description: "the calibration did not finish")
    }

    /// How long a start or a cancel may take to answer: a start opens the board (its chips'
    /// start-up times, in real time for the "rest" board), which CI's parallel phases slowed past
    /// the default 10 s once.
    let patience = isThreadSanitized ? 600 : 120

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// One calibration at a time: a second start while one measures is refused, and a cancel ends
    /// it. The board lies still (its coverage never suffices) for up to ten minutes of real time,
    /// so the first is still measuring when the second start comes, however slow the machine (a
    /// figure-eight in virtual time can be over by then).
    @Test func aSecondStartWhileMeasuringIsRefusedUntilACancel() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let test = try await TestServer.start(calibration: try access(scenario: "rest", realTime: true))
        defer { Task { await test.stop() } }
        let first = try await test.request("POST", "/calibration/magnetometer/start?duration=600", seconds: patience)
        #expect(first.status == 202, "\(first.body)")
        let between = try json(try await test.request("GET", "/calibration/magnetometer").body)
        #expect(between["phase"] as? String == "measuring", "\(between)")
        let second = try await test.request("POST", "/calibration/magnetometer/start", seconds: patience)
        #expect(second.status == 409, "\(second.body)")
        #expect(try await test.request("POST", "/calibration/magnetometer/cancel", seconds: patience).status == 200)
        let state = try await finished(test)
        #expect(state["phase"] as? String == "cancelled", "\(state)")
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))
    }

    @Test("start, progress, save: the same fit as `motionctl calibrate magnetometer` over the same seconds, saved atomically in the same store layout")
    func sameResultAsTheCommandLine() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let test = try await TestServer.start(calibration: try access())
        defer { Task { await test.stop() } }
        let start = try await test.request("POST", "/calibration/magnetometer/start", seconds: patience)
        #expect(start.status == 202, "\(start.body)")
        let state = try await finished(test)
        #expect(state["phase"] as? String == "finished", "\(state)")
        #expect(try #require(state["coveragePercent"] as? Double) >= 70)
        #expect((state["raw"] as? [[Double]])?.count == 200)
        #expect((state["covered"] as? String)?.count == 98)
        #expect((state["guidance"] as? [String])?.isEmpty == false)
        let browser = try #require(state["result"] as? [String: Any])
        #expect(browser["saved"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))   // nothing written before "save"
        let stopped = try #require(browser["stoppedBecause"] as? String)
        #expect(stopped.hasPrefix("coverage and fit are good (after "))
        let seconds = try #require(state["elapsed"] as? Double)

        let save = try await test.request("POST", "/calibration/magnetometer/save", seconds: patience)
        #expect(save.status == 200, "\(save.body)")
        let saved = try json(save.body)
        #expect(saved["saved"] as? Bool == true)
        let path = try #require(saved["path"] as? String)
        #expect(path == store.directory.appendingPathComponent("simulated_LIS3MDL_simulated_0x1C.json").path)
        let stored = try #require(try store.load(SensorIdentity(board: "simulated", chip: "LIS3MDL", bus: "simulated", address: 0x1C))?.magnetometer)
        #expect(try await test.request("POST", "/calibration/magnetometer/save", seconds: patience).status == 409)   // saved once

        // The command line over the same seconds of the same scenario and seed, into its own store.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.appendingPathComponent("cli").path
        let cli = try await ProcessRun.motionctlOnThread(
            ["calibrate", "magnetometer", "--scenario", "figure-eight", "--seed", "7", "--non-interactive", "--duration", "\(Int(seconds))"],
            environment: environment)
        #expect(cli.status == 0, "\(cli.error)")
        let command = try json(cli.output)
        for key in ["sampleCount", "outlierCount", "model", "accuracy", "missingRegionCount"] {
            #expect("\(command[key] ?? "none")" == "\(browser[key] ?? "none")", "\(key)")
        }
        for key in ["fieldStrength", "fitErrorPercent", "coveragePercent"] {
            #expect(try #require(command[key] as? Double) == (try #require(browser[key] as? Double)), "\(key)")
        }
        for key in ["hardIronOffset", "softIronMatrix"] {
            #expect(try #require(command[key] as? [Double]) == (try #require(browser[key] as? [Double])), "\(key)")
        }
        let offset = try #require(command["hardIronOffset"] as? [Double])
        #expect(zip(stored.hardIronOffset, offset).allSatisfy { abs($0 - $1) < 1e-6 }, "\(stored.hardIronOffset) \(offset)")
    }

    @Test("cancel while measuring or after: nothing is written")
    func cancel() async throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let test = try await TestServer.start(calibration: try access())
        defer { Task { await test.stop() } }
        #expect(try await test.request("POST", "/calibration/magnetometer/start?duration=30", seconds: patience).status == 202)
        let cancel = try await test.request("POST", "/calibration/magnetometer/cancel", seconds: patience)
        #expect(cancel.status == 200)
        let cancelled = try await finished(test)
        #expect(cancelled["phase"] as? String == "cancelled")
        #expect(try await test.request("POST", "/calibration/magnetometer/save", seconds: patience).status == 409)

        #expect(try await test.request("POST", "/calibration/magnetometer/start", seconds: patience).status == 202)
        #expect(try await finished(test)["phase"] as? String == "finished")
        #expect(try await test.request("POST", "/calibration/magnetometer/cancel", seconds: patience).status == 200)
        #expect(try json(try await test.request("GET", "/calibration/magnetometer").body)["phase"] as? String == "cancelled")
        #expect(try await test.request("POST", "/calibration/magnetometer/save", seconds: patience).status == 409)
        #expect(!FileManager.default.fileExists(atPath: store.directory.path))
    }
}

/// Runs the built `motionctl`, next to the tests.
enum ProcessRun {
    static func motionctl(_ arguments: [String], environment: [String: String]) throws -> (status: Int32, output: String, error: String) {
        let candidates = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(), Bundle.main.bundleURL.deletingLastPathComponent()]
            .map { $0.appendingPathComponent("motionctl") }
        let executable = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "motionctl not built: \(candidates)")
        return try runToEnd(executable, arguments, environment: environment)
    }

    /// The same, waiting on a thread of its own: Swift concurrency's few threads stay free for the
    /// servers other tests run in this process meanwhile.
    static func motionctlOnThread(_ arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: String, error: String) {
        try await RawHTTP.onThread { try motionctl(arguments, environment: environment) }
    }
}

/// `motionctl serve` itself, the built binary.
@Suite("motionctl serve")
struct ServeCommandTests {
    @Test("loopback: the URL without a token; any other address: the URL with a fresh token; it stops after --duration")
    func addresses() async throws {
        let local = try await ProcessRun.motionctlOnThread(["serve", "--simulated", "--port", "0", "--duration", "0.5"], environment: ProcessInfo.processInfo.environment)
        #expect(local.status == 0, "\(local.error)")
        let lines = local.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Serving the live view at http://127.0.0.1:") == true, "\(lines)")
        #expect(!local.output.contains("token="))
        #expect(lines.last?.hasPrefix("stopped: sampled ") == true, "\(lines)")

        let open = try await ProcessRun.motionctlOnThread(["serve", "--simulated", "--host", "0.0.0.0", "--port", "0", "--duration", "0.5"], environment: ProcessInfo.processInfo.environment)
        #expect(open.status == 0, "\(open.error)")
        let token = try #require(open.output.split(separator: "\n").first { $0.contains("?token=") }?.split(separator: "=").last)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit))
        #expect(open.output.contains("Requests without the token are refused (401)"))
    }

    @Test("bad options: an error naming the option and what to pass")
    func badOptions() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = try await ProcessRun.motionctlOnThread(["serve", "--simulated", "--port", "70000"], environment: environment)
        #expect(port.status != 0)
        #expect(port.error.contains("--port must be a whole number from 0 to 65535, not 70000"))
        let host = try await ProcessRun.motionctlOnThread(["serve", "--simulated", "--host", "somewhere", "--port", "0"], environment: environment)
        #expect(host.status == 1)
        #expect(host.error.contains("error: --host somewhere is not an IP address"))
    }
}
