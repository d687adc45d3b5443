import CommandSupport
import Dispatch
import Foundation
import Locking
import Motion
import MotionFormats

/// The barometer's readings in the rows of `stream` and `record`, which are the IMU's rows: the
/// barometer keeps its own rate (a BMP280 about 26 Hz), so a reading rides in a row taken at or
/// after it, with its own timestamp, and the barometer's cells are empty (CSV) or null (JSON) in a
/// row without one. Rows at least as fast as the barometer carry every reading, oldest first (a
/// reading the sampler delivered late goes in the next row); slower rows carry the newest reading
/// taken by their time and count the older ones as `superseded`. A reading no row carried because
/// the run ended first is counted `afterLastRow`. docs/motionctl.md describes it.
final class BarometerColumns: Sendable {
    let altimeter: Altimeter
    private let state = Locked<(written: Int, superseded: Int, errors: Int)>((0, 0, 0))

    /// Readings taken but not yet in a row, oldest first (the IMU's rows may lag the barometer).
    private let waiting = Locked<[BarometerSample]>([])

    /// Carry every reading, oldest first (rows at least as fast as the barometer), or the newest.
    private let carriesEveryReading: Bool
    /// Readings due at once beyond which the oldest are superseded even when rows are as fast as
    /// the barometer (after an outage of the IMU the rows catch up on them, but not for ever).
    static let backlogLimit = 32
    /// Readings kept for rows that have not come, at most (about 2.5 minutes of a BMP280's).
    static let waitingLimit = 4096

    /// `rowInterval`: seconds between the rows.
    init(altimeter: Altimeter, rowInterval: Double) {
        self.altimeter = altimeter
        carriesEveryReading = altimeter.readingRate.map { rowInterval <= 1 / $0 + 1e-9 } ?? true
    }

    /// The source's barometer for a command's rows, nil with `--no-barometer` or when the source
    /// has none (said on standard error: the rows then have no barometer columns).
    static func open(_ opened: OpenedSource, rowInterval: Double, leaveOut: Bool, command: String) -> BarometerColumns? {
        guard !leaveOut else { return nil }
        do {
            return BarometerColumns(altimeter: try Altimeter(source: opened.source, clock: opened.clock), rowInterval: rowInterval)
        } catch {
            printError("\(command): no barometer columns: \(error)")
            return nil
        }
    }

    /// `stream`'s columns: the reading's time (seconds since boot, as the row's), pressure in kPa
    /// (Core Motion's unit for `AltitudeData.pressure`) and the barometer's die temperature in °C.
    static let columns = ["baro_timestamp_s", "pressure_kPa", "baro_temp_C"]

    /// Starts the readings; their handler runs on `queue`, which must be the rows' queue, so that a
    /// row and the readings before it are in order.
    func start(on queue: DispatchQueue) {
        altimeter.startReadings(to: queue) { [waiting, state] reading, error in
            if let reading {
                // Rows that stopped (the IMU gone) must not make the wait grow for ever: the oldest go, counted.
                let dropped = waiting.withLock { waiting -> Int in
                    waiting.append(reading)
                    guard waiting.count > Self.waitingLimit else { return 0 }
                    waiting.removeFirst()
                    return 1
                }
                if dropped > 0 { state.withLock { $0.superseded += dropped } }
            }
            if let error {
                state.withLock { $0.errors += 1 }
                printError("motionctl: barometer: \(error)")
            }
        }
    }

    /// The reading for a row taken at `timestamp`, of those at or before it not yet in a row: the
    /// oldest when rows are as fast as the barometer (older ones beyond ``backlogLimit`` counted
    /// as superseded), else the newest (the older ones counted as superseded); nil when none is due.
    func take(at timestamp: Double) -> BarometerSample? {
        let (reading, superseded) = waiting.withLock { waiting -> (BarometerSample?, Int) in
            // A tolerance of 1 µs: a reading taken at the row's tick is the row's.
            let due = waiting.prefix { $0.timestamp <= timestamp + 1e-6 }.count
            guard due > 0 else { return (nil, 0) }
            let superseded = carriesEveryReading ? max(0, due - Self.backlogLimit) : due - 1
            let reading = waiting[superseded]
            waiting.removeFirst(superseded + 1)
            return (reading, superseded)
        }
        guard let reading else { return nil }
        state.withLock {
            $0.written += 1
            $0.superseded += superseded
        }
        return reading
    }

    /// The values of ``columns`` for a row taken at `timestamp`.
    func values(at timestamp: Double) -> [MachineOutput.Value] {
        guard let reading = take(at: timestamp) else { return [.missing, .missing, .missing] }
        return [.time(reading.timestamp), .number(reading.pressure / 1000), .number(reading.temperature)]
    }

    /// Stops the readings and says on standard error where every reading went.
    func stop(queue: DispatchQueue) {
        altimeter.stopReadings()
        queue.sync {}
        let after = waiting.withLock { $0.count }
        let counts = state.withLock { $0 }
        var parts = ["\(counts.written) in rows"]
        if counts.superseded > 0 { parts.append("\(counts.superseded) superseded (rows slower than the barometer's \(Self.rate(altimeter)) Hz)") }
        if after > 0 { parts.append("\(after) after the last row") }
        if counts.errors > 0 { parts.append("\(counts.errors) errors") }
        printError("motionctl: barometer \(altimeter.barometerName ?? "?"): readings \(parts.joined(separator: ", ")); sampler: \(altimeter.counters)")
    }

    private static func rate(_ altimeter: Altimeter) -> String {
        altimeter.readingRate.map { String(format: "%.1f", $0) } ?? "?"
    }
}
