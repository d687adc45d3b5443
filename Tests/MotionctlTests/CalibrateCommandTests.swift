import Foundation
import Testing

/// Runs the built `motionctl calibrate …` and `calibration …` on the simulated board, each test
/// with its own calibration store (XDG_CONFIG_HOME in a temporary directory).
@Suite("motionctl calibrate")
struct CalibrateCommandTests {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("motionctl-calibrate-\(UUID())")
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.path
        return environment
    }
    var storeDirectory: URL { home.appendingPathComponent("swift-motion/calibration") }

    func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        try BoardsCommandTests.run(arguments, environment: environment)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    @Test("a simulated figure-eight is fitted, saved, shown and cleared; the plot is written")
    func magnetometerRoundTrip() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        // The plot's folder must exist (checked before the calibration starts).
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let plot = home.appendingPathComponent("fit.svg").path
        let result = try run(["calibrate", "magnetometer", "--simulated", "--non-interactive", "--plot", plot])
        #expect(result.status == 0, "\(result.error)")
        let report = try json(result.output)
        #expect(report["model"] as? String == "fullEllipsoid")
        #expect(report["saved"] as? Bool == true)
        #expect(report["sampleCount"] as? Int == 6000)
        let strength = try #require(report["fieldStrength"] as? Double)
        #expect(strength > 45 && strength < 55)
        #expect(try #require(report["fitErrorPercent"] as? Double) < 2)
        // The simulated LIS3MDL preset's board: hard iron (12, −7, 18) µT.
        let offset = try #require(report["hardIronOffset"] as? [Double])
        #expect(zip(offset, [12.0, -7, 18]).allSatisfy { abs($0 - $1) < 0.5 }, "\(offset)")
        let path = try #require(report["path"] as? String)
        #expect(path == storeDirectory.appendingPathComponent("simulated_LIS3MDL_simulated_0x1C.json").path)

        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        #expect(svg.hasPrefix("<svg"))
        #expect(svg.components(separatedBy: "<polyline").count - 1 == 6)   // ellipse and circle in 3 projections

        let shown = try run(["calibration", "show"])
        #expect(shown.status == 0)
        #expect(shown.output.contains(path))
        #expect(shown.output.contains("magnetometer:  ellipsoid"))

        let cleared = try run(["calibration", "clear", "LIS3MDL"])
        #expect(cleared.status == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("calibration show names a background estimate as such")
    func showNamesABackgroundEstimate() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        let record = """
            {"version": 1, "updated": "2026-11-26T08:00:00Z",
             "sensor": {"board": "simulated", "chip": "LIS3MDL", "bus": "simulated", "address": 28},
             "magnetometer": {"hardIronOffset": [12.1, -7.2, 17.9], "softIronMatrix": [1, 0, 0, 0, 1, 0, 0, 0, 1],
               "fieldStrength": 49.7, "fitErrorPercent": 0, "coveragePercent": 0, "model": "offset", "accuracy": "high",
               "origin": "background", "offsetSigma": 0.3}}
            """
        try Data(record.utf8).write(to: storeDirectory.appendingPathComponent("simulated_LIS3MDL_simulated_0x1C.json"))
        let shown = try run(["calibration", "show"])
        #expect(shown.status == 0, "\(shown.error)")
        #expect(shown.output.contains("magnetometer:  background estimate"), "\(shown.output)")
        #expect(shown.output.contains("σ 0.30 µT"), "\(shown.output)")
    }

    @Test("turning in one plane only: the tool names what is missing and uses a smaller model")
    func poorCoverage() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try run(["calibrate", "magnetometer", "--simulated", "--scenario", "landscape-sweep", "--duration", "42", "--non-interactive"])
        let report = try json(result.output)
        let model = try #require(report["model"] as? String)
        #expect(model == "planarOffset" || model == "offsetOnly", "\(report)")
        #expect(try #require(report["coveragePercent"] as? Double) < 50)
        #expect(try #require(report["missingRegionCount"] as? Int) > 49)
        #expect(try #require(report["reason"] as? String).contains("directions still missing around"))
        #expect(report["accuracy"] as? String != "high")
    }

    @Test("gyroscope: bias at rest is saved; a moving board is refused and nothing is saved")
    func gyroscope() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let moving = try run(["calibrate", "gyroscope", "--simulated", "--scenario", "tumble", "--non-interactive"])
        #expect(moving.status == 1)
        #expect(moving.error.contains("the board is moving"))
        #expect(!FileManager.default.fileExists(atPath: storeDirectory.path))
        let rest = try run(["calibrate", "gyroscope", "--simulated", "--non-interactive"])
        #expect(rest.status == 0, "\(rest.error)")
        #expect(try json(rest.output)["sampleCount"] as? Int == 500)
    }

    @Test("accelerometer: the six-faces scenario gives every face, offset and scale")
    func accelerometer() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try run(["calibrate", "accelerometer", "--simulated", "--non-interactive"])
        #expect(result.status == 0, "\(result.error)")
        let report = try json(result.output)
        #expect((report["faces"] as? [String: Any])?.count == 6)
        let scale = try #require(report["scale"] as? [Double])
        #expect(scale.allSatisfy { abs($0 - 1) < 0.05 })
    }

    /// SIGKILL at several moments of a save loop: the file is always a whole record (old or new),
    /// and a leftover temporary file is never read as a record.
    @Test("killing the process while it saves never leaves a broken calibration file")
    func killDuringSave() throws {
        defer { try? FileManager.default.removeItem(at: home) }
        for round in 0..<8 {
            let process = Process()
            process.executableURL = try BoardsCommandTests.motionctl()
            process.arguments = ["calibration", "stress-save"]
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // The first line names the file; wait (bounded) until the first save is there.
            var target = ""
            for _ in 0..<500 where target.isEmpty || !FileManager.default.fileExists(atPath: target) {
                if target.isEmpty {
                    target = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                }
                usleep(10_000)
            }
            usleep(useconds_t(1_000 + round * 7_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)

            let data = try Data(contentsOf: URL(fileURLWithPath: target))
            let record = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "round \(round): broken file")
            let bias = try #require((record["gyroscope"] as? [String: Any])?["bias"] as? [Double])
            #expect(bias == [0, 0, 0] || bias == [0.1, 0.1, 0.1])
            // `calibration show` reads every record in the store: exactly this one.
            let shown = try run(["calibration", "show"])
            #expect(shown.status == 0, "round \(round): \(shown.error)")
            #expect(shown.output.components(separatedBy: "file:").count - 1 == 1, "round \(round): \(shown.output)")
        }
        let cleared = try run(["calibration", "clear", "--all"])
        #expect(cleared.status == 0)
        // Only the writers' lock files stay (they hold no data; removing one while a writer waits
        // on it would let two writers in at once).
        let left = try FileManager.default.contentsOfDirectory(atPath: storeDirectory.path).filter { !$0.hasSuffix(".lock") }
        #expect(left.isEmpty, "\(left)")
    }
}
