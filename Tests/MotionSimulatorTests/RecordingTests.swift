import Foundation
import Testing
@testable import MotionSimulator

@Suite struct RecordingTests {
    private func sample(_ time: Double, _ value: Double) -> RecordedSample {
        RecordedSample(time: time, specificForce: SIMD3(value, 0, 9.8), angularRate: SIMD3(0, value, 0),
                       magneticField: SIMD3(20, value, -40), temperature: 25 + value)
    }

    @Test func csvRoundTripsExactly() throws {
        let source = ErrorModelSource(base: Scenario.tumble.world(), imu: .mpu9250, magnetometer: .qmc5883l, seed: 4)
        let recording = Recording.record(source, from: 10, duration: 2, rate: 50)
        #expect(recording.samples.count == 101)
        let text = recording.csv()
        #expect(text.hasPrefix(Recording.columns.joined(separator: ",") + "\n"))
        #expect(try Recording(csv: text) == recording)

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("recording-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try recording.write(to: path)
        #expect(try Recording(contentsOf: path) == recording)
    }

    @Test func readsColumnsByNameIgnoringExtrasAndDefaultingOptionalOnes() throws {
        let text = """
            # recorded by hand
            raw_ax,time_s,angular_rate_x_rad_s,angular_rate_y_rad_s,angular_rate_z_rad_s,specific_force_x_m_s2,specific_force_y_m_s2,specific_force_z_m_s2\r
            123,0.5,0.1,0.2,0.3,1,2,9\r
            124,0.51,0.1,0.2,0.4,1,2,9.5\r

            """
        let recording = try Recording(csv: text)
        #expect(recording.samples.count == 2)
        #expect(recording.samples[1] == RecordedSample(time: 0.51, specificForce: SIMD3(1, 2, 9.5), angularRate: SIMD3(0.1, 0.2, 0.4)))
    }

    @Test func reportsWhatIsWrongWithABadFile() {
        func failure(_ text: String) -> RecordingError? { recordingError { () throws(RecordingError) in try Recording(csv: text) } }
        let header = Recording.columns.joined(separator: ",")
        guard case .missingColumn("angular_rate_z_rad_s")? = failure("time_s,specific_force_x_m_s2,specific_force_y_m_s2,specific_force_z_m_s2,angular_rate_x_rad_s,angular_rate_y_rad_s\n") else {
            Issue.record("expected a missing column")
            return
        }
        guard case .badValue(line: 3, column: "specific_force_y_m_s2", text: "abc")? =
            failure(header + "\n0,1,2,3,4,5,6,7,8,9,25\n0.1,1,abc,3,4,5,6,7,8,9,25\n") else {
            Issue.record("expected a bad value on line 3")
            return
        }
        guard case .timeNotIncreasing(line: 3)? = failure(header + "\n1,1,2,3,4,5,6,7,8,9,25\n0.5,1,2,3,4,5,6,7,8,9,25\n") else {
            Issue.record("expected time going backwards")
            return
        }
        guard case .fieldCount(line: 2, expected: 11, found: 3)? = failure(header + "\n1,2,3\n") else {
            Issue.record("expected a short line")
            return
        }
        guard case .empty? = failure(header + "\n") else {
            Issue.record("expected an empty recording")
            return
        }
        func readFailure(_ path: String) -> RecordingError? { recordingError { () throws(RecordingError) in try Recording(contentsOf: path) } }
        guard case .cannotRead? = readFailure("/nonexistent/recording.csv") else {
            Issue.record("expected a read failure")
            return
        }
        #expect(RecordingError.missingColumn("time_s").description.contains("time_s"))
    }

    /// Numbers as the command line reads them, and times a replay can play: each bad line refused
    /// with its line and what is wrong (the header is line 1, the good first sample line 2).
    @Test(arguments: [
        ("0.1,nan,0,9.8,0,0,0,0,0,0,25", "badValue"),
        ("0.1,inf,0,9.8,0,0,0,0,0,0,25", "badValue"),
        ("0.1,0x10,0,9.8,0,0,0,0,0,0,25", "badValue"),
        ("0.1,1e999,0,9.8,0,0,0,0,0,0,25", "badValue"),
        ("0.1, ,0,9.8,0,0,0,0,0,0,25", "badValue"),
        ("0.1,1,5,0,9.8,0,0,0,0,0,0,25", "fieldCount"),
        ("0,0,0,9.8,0,0,0,0,0,0,25", "timeNotIncreasing"),
        ("nan,0,0,9.8,0,0,0,0,0,0,25", "badValue"),
        ("1e308,0,0,9.8,0,0,0,0,0,0,25", "timeOutOfRange"),
        ("31536000,0,0,9.8,0,0,0,0,0,0,25", "timeOutOfRange"),
    ])
    func refusesWhatTheCommandLineWouldAndTimesNoReplayCouldPlay(line: String, expected: String) {
        let header = Recording.columns.joined(separator: ",")
        let error = recordingError { () throws(RecordingError) in try Recording(csv: header + "\n0,0,0,9.8,0,0,0,0,0,0,25\n" + line + "\n") }
        let kind: String? = switch error {
        case .badValue?: "badValue"
        case .fieldCount?: "fieldCount"
        case .timeNotIncreasing?: "timeNotIncreasing"
        case .timeOutOfRange?: "timeOutOfRange"
        case let other?: "\(other)"
        case nil: nil
        }
        #expect(kind == expected, "\(line): \(error?.description ?? "read")")
        #expect(error?.description.contains("line 3") == true, "\(error?.description ?? "")")
    }

    @Test func aByteOrderMarkBeforeTheHeaderIsSkipped() throws {
        let text = "\u{FEFF}" + Recording.columns.joined(separator: ",") + "\n0,0,0,9.8,0,0,0,0,0,0,25\n0.01,0,0,9.8,0,0,0,0,0,0,25\n"
        #expect(try Recording(csv: text).samples.count == 2)
    }

    @Test func replayHoldsOrInterpolatesBetweenSamples() {
        let recording = Recording(samples: [sample(1, 0), sample(2, 10), sample(3, 20)])
        let hold = ReplaySource(recording)
        let linear = ReplaySource(recording, interpolation: .linear)
        #expect(hold.state(at: 1.75).specificForce.x == 0)
        #expect(hold.state(at: 2).specificForce.x == 10)
        #expect(hold.state(at: 1.75).time == 1.75)
        #expect(abs(linear.state(at: 1.75).specificForce.x - 7.5) < 1e-12)
        #expect(abs(linear.state(at: 2.5).angularRate.y - 15) < 1e-12)
        #expect(abs(linear.state(at: 2.5).temperature - 40) < 1e-12)
        // Before the first and after the last sample: hold the ends.
        #expect(linear.state(at: 0).specificForce.x == 0)
        #expect(linear.state(at: 99).specificForce.x == 20)
        // Shifted to start at t = 1000.
        let shifted = ReplaySource(recording, timeShift: 999)
        #expect(shifted.state(at: 1001.2).specificForce.x == 10)
    }

    @Test func replayReproducesARecordedSourceAtItsSampleTimes() {
        let world = Scenario.walk.world()
        let recording = Recording.record(world, duration: 5, rate: 100)
        let replay = ReplaySource(recording)
        for k in stride(from: 0, through: 500, by: 7) {
            let t = Double(k) / 100
            // A recording holds what the IMU and magnetometer measure, not the world's true
            // orientation nor its air pressure (a replay gives the standard sea-level pressure).
            var measured = world.state(at: t)
            measured.orientation = nil
            measured.pressure = StandardAtmosphere.seaLevelPressure
            #expect(replay.state(at: t) == measured)
        }
    }
}

/// The error `body` threw; nil when it made a recording.
private func recordingError(_ body: () throws(RecordingError) -> Recording) -> RecordingError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
