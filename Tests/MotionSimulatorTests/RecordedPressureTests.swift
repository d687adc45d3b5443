import Testing
@testable import MotionSimulator

/// A recording's barometer columns (`motionctl record` with a barometer): read into
/// `Recording.pressures`, checked, and played back as the replay's air pressure.
@Suite struct RecordedPressureTests {
    static let header = Recording.requiredColumns.joined(separator: ",") + ",barometer_time_s,pressure_kPa,barometer_temperature_C"
    static let imu = "0,0,9.8,0,0,0"

    @Test func readingsAreReadOnTheRowsThatCarryThem() throws {
        let text = Self.header + "\n"
            + "0.01,\(Self.imu),0.005,101.325,24.5\n"
            + "0.02,\(Self.imu),,,\n"
            + "0.03,\(Self.imu),0.03,101.313,24.6\n"
        let recording = try Recording(csv: text)
        #expect(recording.samples.count == 3)
        #expect(recording.pressures == [
            RecordedPressure(time: 0.005, pressure: 101_325, temperature: 24.5), RecordedPressure(time: 0.03, pressure: 101_313, temperature: 24.6),
        ])
        // An old recording (no such columns) has none.
        #expect(try Recording(csv: Recording.requiredColumns.joined(separator: ",") + "\n0.01,\(Self.imu)\n").pressures.isEmpty)
    }

    @Test func badReadingsAreRefusedNamingTheLine() {
        func failure(_ rows: String) -> RecordingError? {
            do throws(RecordingError) {
                _ = try Recording(csv: Self.header + "\n" + rows)
                return nil
            } catch {
                return error
            }
        }
        guard case .badPressure(line: 2, kilopascal: 0)? = failure("0.01,\(Self.imu),0.01,0,25\n") else {
            Issue.record("a pressure of 0 kPa was not refused")
            return
        }
        guard case .badValue(line: 2, column: "pressure_kPa", text: "n/a")? = failure("0.01,\(Self.imu),0.01,n/a,25\n") else {
            Issue.record("a pressure that is no number was not refused")
            return
        }
        guard case .timeOutOfRange(line: 2, _)? = failure("0.01,\(Self.imu),0.02,101,25\n") else {
            Issue.record("a reading after its row was not refused")
            return
        }
        guard case .timeNotIncreasing(line: 3)? = failure("0.01,\(Self.imu),0.01,101,25\n0.02,\(Self.imu),0.01,101,25\n") else {
            Issue.record("a reading at the time of the one before was not refused")
            return
        }
        #expect(RecordingError.badPressure(line: 2, kilopascal: 0).description.contains("pressure_kPa"))
    }

    @Test func aReplayHoldsEachReadingUntilTheNext() throws {
        let recording = try Recording(csv: Self.header + "\n"
            + "0.01,\(Self.imu),0.01,100.000,25\n"
            + "0.02,\(Self.imu),,,\n"
            + "0.03,\(Self.imu),0.025,99.000,25\n")
        let replay = ReplaySource(recording, timeShift: 1000)
        #expect(replay.state(at: 1000).pressure == 100_000)         // before the first: the first
        #expect(replay.state(at: 1000.02).pressure == 100_000)
        #expect(replay.state(at: 1000.025).pressure == 99_000)
        #expect(replay.state(at: 1005).pressure == 99_000)          // after the last: the last
        // Without readings: the standard sea-level pressure, as before.
        let plain = ReplaySource(Recording(samples: recording.samples))
        #expect(plain.state(at: 0.02).pressure == StandardAtmosphere.seaLevelPressure)
    }
}
