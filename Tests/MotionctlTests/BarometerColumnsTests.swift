import Foundation
import MotionSimulation
import Testing
import TestSupport

/// The barometer's readings in `stream` and `record` (docs/motionctl.md): each reading in one row,
/// with its own time, at or before the row's; the rest counted on standard error; and a recording
/// with them replays them.
struct BarometerColumnsTests {
    /// CSV text as a header and rows of cells (comment lines skipped; empty cells kept).
    static func cells(_ text: String) -> (header: [String], rows: [[String]]) {
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let header = lines.first.map { $0.split(separator: ",").map(String.init) } ?? []
        return (header, lines.dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
    }

    /// (row time, reading time, pressure kPa, temperature °C) of the rows that carry a reading.
    static func readings(_ text: String, time: String, readingTime: String, temperature: String) throws
        -> (rows: Int, readings: [(row: Double, time: Double, kilopascal: Double, celsius: Double)]) {
        let (header, rows) = cells(text)
        let columns = try [time, readingTime, "pressure_kPa", temperature].map { name in try #require(header.firstIndex(of: name), "\(name) in \(header)") }
        var readings: [(row: Double, time: Double, kilopascal: Double, celsius: Double)] = []
        for row in rows {
            try #require(row.count == header.count, "\(row)")
            let values = columns.map { row[$0] }
            // The three barometer cells are all filled or all empty.
            #expect(values.dropFirst().allSatisfy(\.isEmpty) || values.dropFirst().allSatisfy { !$0.isEmpty }, "\(row)")
            guard !values[1].isEmpty else { continue }
            let numbers = try values.map { try #require(Double($0), "\($0)") }
            readings.append((numbers[0], numbers[1], numbers[2], numbers[3]))
        }
        return (rows.count, readings)
    }

    @Test("stream: each reading once, in a row at or after it, at the barometer's rate; none superseded at 100 Hz")
    func streamCarriesEachReadingOnce() throws {
        let result = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--rate", "100", "--duration", "4"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: "\n").first?.hasSuffix(",baro_timestamp_s,pressure_kPa,baro_temp_C") == true)
        let (rows, readings) = try Self.readings(result.output, time: "timestamp_s", readingTime: "baro_timestamp_s", temperature: "baro_temp_C")
        #expect(rows == 400)
        // The BMP280 at its indoor-navigation rate, 26.3 Hz (datasheet Table 7): about 105 in 4 s.
        #expect((100...108).contains(readings.count), "\(readings.count) readings")
        for (earlier, later) in zip(readings, readings.dropFirst()) { #expect(later.time > earlier.time) }
        #expect(readings.allSatisfy { $0.time <= $0.row + 1e-6 })
        // Rows at 100 Hz are faster than the barometer: a reading waits at most for the sampler's delivery.
        let wait = readings.map { $0.row - $0.time }.max() ?? 0
        #expect(wait < 0.2, "\(wait) s")
        // At rest near sea level: the standard atmosphere's 101.325 kPa within a few hundred pascals.
        #expect(readings.allSatisfy { abs($0.kilopascal - 101.325) < 1 && (0...50).contains($0.celsius) })
        // Standard error accounts for every reading the rows did not carry.
        let summary = try #require(result.error.split(separator: "\n").first { $0.contains("motionctl: barometer BMP280") }, "\(result.error)")
        #expect(summary.contains("readings \(readings.count) in rows"), "\(summary)")
        #expect(!summary.contains("superseded"), "\(summary)")
    }

    @Test("stream slower than the barometer: the newest reading per row, the others counted as superseded")
    func slowRowsCountTheSupersededReadings() throws {
        let result = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--rate", "5", "--duration", "4", "--format", "jsonl"])
        #expect(result.status == 0, "\(result.error)")
        let objects = try result.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.count == 20)
        let carried = objects.filter { $0["baro_timestamp_s"] is NSNumber }.count
        #expect(carried == 20, "every row at 5 Hz has a reading newer than the last")
        let summary = try #require(result.error.split(separator: "\n").first { $0.contains("motionctl: barometer") }, "\(result.error)")
        let words = summary.split(separator: " ")
        let superseded = try #require(words.firstIndex(of: "superseded").flatMap { Int(words[$0 - 1].trimmingCharacters(in: .punctuationCharacters)) })
        let sampled = try #require(words.firstIndex(of: "sampled").flatMap { Int(words[$0 + 1].trimmingCharacters(in: .punctuationCharacters)) })
        let after = words.firstIndex(of: "after").flatMap { Int(words[$0 - 1].trimmingCharacters(in: .punctuationCharacters)) } ?? 0
        // Nothing lost silently: in rows + superseded + after the last row = every reading taken.
        #expect(carried + superseded + after == sampled, "\(summary)")
        #expect(superseded > 60, "\(summary)")
    }

    @Test("--no-barometer leaves the columns out; a board without a barometer has none")
    func leftOut() throws {
        let plain = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--count", "3", "--no-barometer"])
        #expect(plain.status == 0 && plain.output.split(separator: "\n").first?.hasSuffix("mag_z_uT") == true, "\(plain.output)")
        let none = try BoardsCommandTests.run(["stream", "--scenario", "rest", "--count", "3", "--barometer", "none"])
        #expect(none.status == 0 && none.output.split(separator: "\n").first?.hasSuffix("mag_z_uT") == true, "\(none.output)")
        #expect(none.error.contains("no barometer columns: "), "\(none.error)")
    }

    @Test("record: the readings with their own times; a replay's barometer measures them, reading for reading")
    func recordAndReplayTheBarometer() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-baro-\(UUID()).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let motionctl = try builtExecutable("motionctl")
        let recorded = try runToEnd(motionctl, ["record", "--scenario", "lift", "--rate", "100", "--duration", "30", "--output", path])
        #expect(recorded.status == 0, "\(recorded.error)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("# BMP280 at 0x76"), "the comment names the barometer")
        let (rows, recording) = try Self.readings(text, time: "time_s", readingTime: "barometer_time_s", temperature: "barometer_temperature_C")
        #expect(rows == 3000)
        #expect((780...800).contains(recording.count), "26.3 Hz for 30 s: \(recording.count)")
        let summary = try #require(recorded.error.split(separator: "\n").first { $0.contains("motionctl: barometer") }, "\(recorded.error)")
        #expect(!summary.contains("superseded"), "rows at 100 Hz carry every reading: \(summary)")
        // The recording reads back with its readings, in Pa.
        let read = try Recording(contentsOf: path)
        #expect(read.samples.count == 3000 && read.pressures.count == recording.count)
        #expect(zip(read.pressures, recording).allSatisfy { abs($0.time - $1.time) < 1e-9 && abs($0.pressure - $1.kilopascal * 1000) < 1e-3 })
        // The lift rises 15 m from 10 s on: about 180 Pa less by 25 s.
        let first = try #require(recording.first), last = try #require(recording.last)
        #expect(first.kilopascal - last.kilopascal > 0.15, "\(first.kilopascal) → \(last.kilopascal) kPa")

        let replayed = try runToEnd(motionctl, ["stream", "--replay", path, "--rate", "100"])
        #expect(replayed.status == 0, "\(replayed.error)")
        let (replayedRows, replay) = try Self.readings(replayed.output, time: "timestamp_s", readingTime: "baro_timestamp_s", temperature: "baro_temp_C")
        #expect(replayedRows == 3000)
        // Each replayed reading against the recorded one held at its time: at rest (the first 10 s)
        // within the chip's quantisation and noise; climbing, within the IIR filter's lag.
        // The replay plays recorded time r at r + its start: the first rows give the shift.
        let firstRow = { (text: String, column: String) throws -> Double in
            let (header, rows) = Self.cells(text)
            let index = try #require(header.firstIndex(of: column))
            return try #require(rows.first.flatMap { Double($0[index]) })
        }
        let origin = try firstRow(text, "time_s") - firstRow(replayed.output, "timestamp_s")
        // The replayed BMP280 reads at its own rate as the recorded one did: as many readings up to
        // 29.8 s (the last rows' readings may come after the last row in either run), ±1 for where
        // its first cycle falls.
        let end = recording[0].time + 29.8
        let (recordedCount, replayedCount) = (recording.count { $0.time <= end }, replay.count { $0.time + origin <= end })
        #expect(abs(replayedCount - recordedCount) <= 1, "\(replayedCount) replayed of \(recordedCount)")
        var worstAtRest = 0.0, worstClimbing = 0.0
        for reading in replay {
            let time = reading.time + origin
            guard let held = recording.last(where: { $0.time <= time + 1e-6 }) else { continue }
            let difference = abs(reading.kilopascal - held.kilopascal) * 1000
            if time < recording[0].time + 9 { worstAtRest = max(worstAtRest, difference) } else { worstClimbing = max(worstClimbing, difference) }
        }
        print(String(format: "replayed barometer: worst %.2f Pa at rest, %.2f Pa climbing", worstAtRest, worstClimbing))
        #expect(worstAtRest < 1, "\(worstAtRest) Pa")
        // The chip's IIR filter (coefficient 16 at 26.3 Hz) lags a 1 m/s climb by about 0.6 s, 7 Pa,
        // on top of the recorded readings' own lag; 15 Pa is a metre and a quarter.
        #expect(worstClimbing < 15, "\(worstClimbing) Pa")
    }
}
