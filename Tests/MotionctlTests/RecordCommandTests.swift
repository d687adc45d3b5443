import ArgumentParser
import Foundation
import Testing
import TestSupport
@testable import motionctl

#if canImport(Glibc)
import Glibc
#endif

struct RecordCommandTests {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID()).csv").path
    }

    /// Rows of the CSV as columns by name (comment lines skipped).
    private func table(_ text: String) -> (header: [String], rows: [[String: Double]], comments: [String]) {
        let lines = text.split(separator: "\n").map(String.init)
        let comments = lines.filter { $0.hasPrefix("#") }
        let data = lines.filter { !$0.hasPrefix("#") }
        let header = data.first?.split(separator: ",").map(String.init) ?? []
        let rows = data.dropFirst().map { line in
            Dictionary(uniqueKeysWithValues: zip(header, line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) ?? .nan }))
        }
        return (header, rows, comments)
    }

    @Test func recordsTheSimulatedBoardInVirtualTimeWithRawCountsAndScaledValues() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command = try RecordCommand.parse(["--scenario", "rest", "--rate", "50", "--duration", "2", "--output", path])
        try command.run()
        let (header, rows, comments) = table(try String(contentsOfFile: path, encoding: .utf8))

        #expect(header == [
            "time_s", "accelerometer_x_LSB", "accelerometer_y_LSB", "accelerometer_z_LSB",
            "gyroscope_x_LSB", "gyroscope_y_LSB", "gyroscope_z_LSB",
            "magnetometer_x_LSB", "magnetometer_y_LSB", "magnetometer_z_LSB",
            "specific_force_x_m_s2", "specific_force_y_m_s2", "specific_force_z_m_s2",
            "angular_rate_x_rad_s", "angular_rate_y_rad_s", "angular_rate_z_rad_s",
            "magnetic_field_x_uT", "magnetic_field_y_uT", "magnetic_field_z_uT", "temperature_C",
            "barometer_time_s", "pressure_kPa", "barometer_temperature_C",
        ])
        #expect(comments.contains { $0.contains("8196.72131147541 LSB/g") && $0.contains("57.142857142857146 LSB/(deg/s)") })
        #expect(comments.contains { $0.contains("LIS3MDL") && $0.contains("68.42") })
        #expect(rows.count == 100)
        // Virtual time: one row every 1/50 s from 0.02 s, whatever the real time took.
        for (index, row) in rows.enumerated() {
            let time: Double = row["time_s"] ?? .nan
            #expect(abs(time - Double(index + 1) / 50) < 1e-12)
        }
        // Scaled = counts / sensitivity, printed with 6 decimals (MachineOutput); lying face up,
        // the accelerometer reads about +1 g on z.
        for row in rows {
            for axis in ["x", "y", "z"] {
                let force = (row["accelerometer_\(axis)_LSB"] ?? .nan) / 8196.72131147541 * 9.80665
                #expect(abs(force - (row["specific_force_\(axis)_m_s2"] ?? .nan)) <= 5e-7)
                let rate = (row["gyroscope_\(axis)_LSB"] ?? .nan) / 57.142857142857146 * .pi / 180
                #expect(abs(rate - (row["angular_rate_\(axis)_rad_s"] ?? .nan)) <= 5e-7)
                let field = (row["magnetometer_\(axis)_LSB"] ?? .nan) / 68.42
                #expect(abs(field - (row["magnetic_field_\(axis)_uT"] ?? .nan)) <= 5e-7)
            }
            #expect(abs((row["specific_force_z_m_s2"] ?? .nan) - 9.80665) < 0.3)
        }
    }

    /// A signal mid-recording (Ctrl-C, `systemctl stop`, a closed terminal): the file under its
    /// name holds every sample the summary counts, whole, and nothing else is left in its folder;
    /// before the first sample (one every 100 s here), the file already there is left as it was.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalLeavesTheRecordingSoFarOrTheOldFile(signal: Int32) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("record-signal-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("walk.csv").path
        try "old\n".write(toFile: path, atomically: true, encoding: .utf8)

        func stopped(_ arguments: [String]) throws -> (status: Int32, error: String) {
            let process = Process()
            process.executableURL = try builtExecutable("motionctl")
            process.arguments = ["record", "--simulated", "--real-time", "--duration", "600", "--output", path] + arguments
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_CONFIG_HOME"] = folder.path
            process.environment = environment
            let error = Pipe()
            process.standardError = error
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // Until the command says it records (it watches for signals by then).
            var said = Data()
            while !String(decoding: said, as: UTF8.self).contains("(Ctrl-C stops)"), process.isRunning {
                said += error.fileHandleForReading.availableData
            }
            usleep(1_500_000)
            kill(process.processIdentifier, signal)
            said += error.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: said, as: UTF8.self))
        }

        let early = try stopped(["--rate", "0.01"])
        #expect(early.status == 128 + signal, "\(early.error)")
        #expect(early.error.contains("no sample recorded, \(path) left as it was"), "\(early.error)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n")

        let during = try stopped([])
        #expect(during.status == 128 + signal, "\(during.error)")
        let (header, rows, comments) = table(try String(contentsOfFile: path, encoding: .utf8))
        let counted = during.error.split(separator: " ").firstIndex(of: "of").flatMap { Int(during.error.split(separator: " ")[$0 - 1]) }
        #expect(counted.map { $0 >= 1 && $0 == rows.count } == true, "\(rows.count) rows; \(during.error)")
        #expect(header.first == "time_s" && !comments.isEmpty)
        #expect(rows.allSatisfy { $0.count == header.count && !($0["time_s"] ?? .nan).isNaN })
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0 != "swift-motion" } == ["walk.csv"])
    }

    /// `stream --replay` of a recording at the recording's rate gives its samples, each once and
    /// in order: the accelerometer and gyroscope of every row are the recorded ones (within the
    /// chip's 16-bit quantisation), for a hardware-in-the-loop test that needs the same sequence.
    @Test(arguments: [100.0, 50.0])
    func aReplayIsItsRecordingSampleForSample(rate: Double) throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let motionctl = try builtExecutable("motionctl")
        let recorded = try runToEnd(motionctl, ["record", "--scenario", "tumble", "--rate", "\(rate)", "--duration", "2", "--output", path])
        #expect(recorded.status == 0, "\(recorded.error)")
        let recording = table(try String(contentsOfFile: path, encoding: .utf8)).rows
        let replayed = try runToEnd(motionctl, ["stream", "--replay", path, "--rate", "\(rate)"])
        #expect(replayed.status == 0, "\(replayed.error)")
        let rows = table(replayed.output).rows
        #expect(rows.count == recording.count && recording.count == Int(2 * rate), "\(rows.count) rows of \(recording.count) samples")
        for (index, (row, sample)) in zip(rows, recording).enumerated() {
            let acceleration = (row["acc_x_g"] ?? .nan) + (sample["specific_force_x_m_s2"] ?? .nan) / 9.80665
            let rotation = (row["rot_z_rad_s"] ?? .nan) - (sample["angular_rate_z_rad_s"] ?? .nan)
            #expect(abs(acceleration) < 2e-4 && abs(rotation) < 2e-4, "row \(index): \(row) against \(sample)")
        }
    }

    @Test func anIMUWithoutAMagnetometerHasNoMagnetometerColumns() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try RecordCommand.parse(["--simulated", "--imu", "mpu6050", "--magnetometer", "none", "--duration", "0.1", "--output", path]).run()
        let (header, rows, comments) = table(try String(contentsOfFile: path, encoding: .utf8))
        #expect(!header.contains { $0.hasPrefix("magnet") })
        #expect(rows.count == 10)
        #expect(comments.contains { $0.contains("MPU-6050") || $0.contains("MPU6050") })
    }

    @Test func rejectsContradictoryOrImpossibleOptions() {
        for arguments in [
            ["--simulated", "--bus", "/dev/i2c-1"], ["--scenario", "six-faces", "--bus", "1"],
            ["--simulated", "--rate", "0"], ["--simulated", "--duration", "-1"], ["--simulated", "--rate", "10", "--duration", "0.01"],
            ["--scenario", "no-such-scenario"], ["--simulated", "--imu", "bmi088"], ["--simulated", "--magnetometer", "mmc5603"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try RecordCommand.parse(arguments) }
        }
    }

    @Test func aMissingBusFailsTheCommand() throws {
        let command = try RecordCommand.parse(["--bus", "/dev/i2c-swift-motion-missing", "--duration", "0.1"])
        #expect(throws: ExitCode.failure) { try command.run() }
    }
}
