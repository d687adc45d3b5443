import FileAccess
import Foundation

/// One recorded instant: what the chip experienced (or what a calibrated sensor read), chip axes.
public struct RecordedSample: Sendable, Equatable {
    /// Seconds since boot.
    public var time: Double
    /// m/s² (accelerometer sign: face up at rest is (0, 0, +9.80665)).
    public var specificForce: SIMD3<Double>
    /// rad/s, right-hand rule.
    public var angularRate: SIMD3<Double>
    /// µT; zero when the recording has no magnetometer.
    public var magneticField: SIMD3<Double>
    /// °C.
    public var temperature: Double

    public init(time: Double, specificForce: SIMD3<Double>, angularRate: SIMD3<Double>, magneticField: SIMD3<Double> = .zero, temperature: Double = 25) {
        self.time = time
        self.specificForce = specificForce
        self.angularRate = angularRate
        self.magneticField = magneticField
        self.temperature = temperature
    }

    package init(_ state: PhysicalState) {
        self.init(time: state.time, specificForce: state.specificForce, angularRate: state.angularRate,
                  magneticField: state.magneticField, temperature: state.temperature)
    }

    package var physicalState: PhysicalState {
        PhysicalState(time: time, specificForce: specificForce, angularRate: angularRate,
                      magneticField: magneticField, temperature: temperature)
    }
}

/// One barometer reading in a recording, at its own time (a barometer keeps its own rate).
public struct RecordedPressure: Sendable, Equatable {
    /// Seconds since boot when the barometer took it, on the samples' clock.
    public var time: Double
    /// Air pressure, Pa.
    public var pressure: Double
    /// The barometer's die temperature, °C.
    public var temperature: Double

    public init(time: Double, pressure: Double, temperature: Double = 25) {
        self.time = time
        self.pressure = pressure
        self.temperature = temperature
    }
}

/// Why a recording could not be read or written.
public enum RecordingError: Error, CustomStringConvertible {
    /// The file could not be opened or read.
    case cannotRead(path: String, cause: any Error)
    /// The file could not be written.
    case cannotWrite(path: String, cause: any Error)
    /// No header line, or it lacks a required column.
    case missingColumn(String)
    /// A value that is not a plain decimal number (`nan`, `inf`, `0x10` and `1e999` are refused as
    /// the command line refuses them; line numbers count from 1, the header is line 1).
    case badValue(line: Int, column: String, text: String)
    /// A line with more or fewer fields than the header (a decimal comma splits a value in two).
    case fieldCount(line: Int, expected: Int, found: Int)
    /// A barometer reading that is not an air pressure (kPa, above 0 and below 1100).
    case badPressure(line: Int, kilopascal: Double)
    /// Time stood still or went backwards.
    case timeNotIncreasing(line: Int)
    /// A time a replay could not play: beyond ``Recording/maximumTime``, or a gap or a span longer
    /// than the slowest rate and the longest duration `motionctl record` takes.
    case timeOutOfRange(line: Int, problem: String)
    /// No samples.
    case empty

    public var description: String {
        switch self {
        case let .cannotRead(path, cause): "cannot read recording \(path): \(cause) (check the path and permissions)"
        case let .cannotWrite(path, cause): "cannot write recording \(path): \(cause) (check the directory exists and is writable)"
        case let .missingColumn(name): "recording has no column \"\(name)\" (the header must name \(Recording.requiredColumns.joined(separator: ", ")))"
        case let .badValue(line, column, text):
            "recording line \(line), column \(column): \"\(text)\" is not a plain decimal number (write e.g. 9.80665 or -1.5e-3; a decimal point, not a comma)"
        case let .fieldCount(line, expected, found):
            "recording line \(line) has \(found) fields, the header has \(expected) (a decimal comma splits a value: write a point)"
        case let .badPressure(line, kilopascal):
            "recording line \(line), column \(Recording.pressureColumn): \(kilopascal) kPa is not an air pressure (write kPa, above 0 and below 1100)"
        case let .timeNotIncreasing(line): "recording line \(line): time does not increase (samples must be in time order, each later than the one before)"
        case let .timeOutOfRange(line, problem): "recording line \(line): \(problem)"
        case .empty: "recording has no samples"
        }
    }
}

/// A sequence of samples in time order, read from or written to CSV.
///
/// CSV format: optional `#` comment lines, then a header naming columns with their units, then one
/// line per sample. Columns are found by name, so extra columns (raw chip counts, for example)
/// are ignored when reading:
///
///     time_s,specific_force_x_m_s2,specific_force_y_m_s2,specific_force_z_m_s2,angular_rate_x_rad_s,angular_rate_y_rad_s,angular_rate_z_rad_s,magnetic_field_x_uT,magnetic_field_y_uT,magnetic_field_z_uT,temperature_C
///
/// Time, specific force and angular rate are required; a missing magnetic field reads as zero, a
/// missing temperature as 25 °C. A recording of a board with a barometer (`motionctl record`)
/// adds `barometer_time_s`, `pressure_kPa` and `barometer_temperature_C`: filled on a row that
/// carries a new barometer reading (taken at `barometer_time_s`, at or before the row's time),
/// empty on the others; they become ``pressures``.
public struct Recording: Sendable, Equatable {
    public var samples: [RecordedSample]
    /// The barometer's readings in time order; empty when the recording has none (a replay then
    /// holds the standard sea-level pressure).
    public var pressures: [RecordedPressure]

    public init(samples: [RecordedSample], pressures: [RecordedPressure] = []) {
        self.samples = samples
        self.pressures = pressures
    }

    package static let timeColumn = "time_s"
    package static let specificForceColumns = ["specific_force_x_m_s2", "specific_force_y_m_s2", "specific_force_z_m_s2"]
    package static let angularRateColumns = ["angular_rate_x_rad_s", "angular_rate_y_rad_s", "angular_rate_z_rad_s"]
    package static let magneticFieldColumns = ["magnetic_field_x_uT", "magnetic_field_y_uT", "magnetic_field_z_uT"]
    package static let temperatureColumn = "temperature_C"
    /// The barometer's columns, when the recording has one.
    package static let barometerTimeColumn = "barometer_time_s"
    package static let pressureColumn = "pressure_kPa"
    package static let barometerTemperatureColumn = "barometer_temperature_C"
    package static let barometerColumns = [barometerTimeColumn, pressureColumn, barometerTemperatureColumn]
    /// The columns every recording needs.
    package static let requiredColumns = [timeColumn] + specificForceColumns + angularRateColumns
    /// The header ``csv()`` writes, in order.
    package static let columns = requiredColumns + magneticFieldColumns + [temperatureColumn]

    /// Samples `world` every 1/`rate` seconds for `duration` seconds starting at `start` (its
    /// time; no samples unless both are positive and finite).
    public static func record(_ world: World, from start: Double = 0, duration: Double, rate: Double) -> Recording {
        record(world as any PhysicalSource, from: start, duration: duration, rate: rate)
    }

    /// The same for any physical source (a replay, a world with sensor errors).
    package static func record(_ source: any PhysicalSource, from start: Double = 0, duration: Double, rate: Double) -> Recording {
        let span = (duration * rate).rounded(.down)
        guard span.isFinite, span >= 0, rate > 0 else { return Recording(samples: []) }
        let count = Int(min(span, 1e9)) + 1
        return Recording(samples: (0..<count).map { RecordedSample(source.state(at: start + Double($0) / rate)) })
    }

    /// The recording as CSV text (header line, then one line per sample; values printed so that
    /// they read back exactly).
    public func csv() -> String {
        var text = Self.columns.joined(separator: ",") + "\n"
        for s in samples {
            let values = [s.time, s.specificForce.x, s.specificForce.y, s.specificForce.z,
                          s.angularRate.x, s.angularRate.y, s.angularRate.z,
                          s.magneticField.x, s.magneticField.y, s.magneticField.z, s.temperature]
            text += values.map { "\($0)" }.joined(separator: ",") + "\n"
        }
        return text
    }

    /// Writes ``csv()`` to `path`.
    public func write(to path: String) throws(RecordingError) {
        do {
            try OutputFile.write(Array(csv().utf8), to: path, what: "a recording")
        } catch {
            throw .cannotWrite(path: path, cause: error)
        }
    }

    /// Reads a CSV file (see the type's documentation for the format).
    public init(contentsOf path: String) throws(RecordingError) {
        let text: String
        do {
            text = String(decoding: try FileContents.read(path, what: "a recording (a CSV file)", limit: FileContents.Limit.recording), as: UTF8.self)
        } catch {
            throw .cannotRead(path: path, cause: error)
        }
        try self.init(csv: text)
    }

    /// The largest time a sample may have, s: 31 years of seconds since boot.
    public static let maximumTime = 1e9
    /// The longest gap between two samples, s: a day (`motionctl record`'s slowest rate), with a second to spare.
    public static let maximumGap = 86_401.0
    /// The longest span from the first sample to the last, s: a year (`motionctl record`'s longest
    /// duration) and a day.
    public static let maximumSpan = 31_536_000.0 + 86_400

    /// Parses CSV text (see the type's documentation for the format). Numbers are read as the
    /// command line reads them (``DecimalNumber``); a byte order mark before the first line is skipped.
    public init(csv text: String) throws(RecordingError) {
        let text = text.hasPrefix("\u{FEFF}") ? String(text.unicodeScalars.dropFirst()) : text
        var header: [Substring]?
        var index: [String: Int] = [:]
        var samples: [RecordedSample] = []
        var pressures: [RecordedPressure] = []
        var lineNumber = 0
        // `isNewline` also splits "\r\n", which Swift treats as a single character.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            guard let names = header else {
                header = fields
                for (position, name) in fields.enumerated() {
                    index[name.trimmingCharacters(in: .whitespaces)] = position
                }
                for name in Self.requiredColumns where index[name] == nil { throw .missingColumn(name) }
                continue
            }
            guard fields.count == names.count else {
                throw .fieldCount(line: lineNumber, expected: names.count, found: fields.count)
            }
            func value(_ column: String, default fallback: Double? = nil) throws(RecordingError) -> Double {
                guard let position = index[column] else { return fallback ?? 0 }
                let text = fields[position].trimmingCharacters(in: .whitespaces)
                guard let number = DecimalNumber.parse(text) else { throw .badValue(line: lineNumber, column: column, text: String(text.prefix(40))) }
                return number
            }
            func vector(_ columns: [String]) throws(RecordingError) -> SIMD3<Double> {
                SIMD3(try value(columns[0]), try value(columns[1]), try value(columns[2]))
            }
            let sample = RecordedSample(
                time: try value(Self.timeColumn), specificForce: try vector(Self.specificForceColumns),
                angularRate: try vector(Self.angularRateColumns), magneticField: try vector(Self.magneticFieldColumns),
                temperature: try value(Self.temperatureColumn, default: 25))
            if abs(sample.time) > Self.maximumTime {
                throw .timeOutOfRange(line: lineNumber, problem: "time \(sample.time) s is beyond ±\(Self.maximumTime) s")
            }
            if let last = samples.last {
                if sample.time <= last.time { throw .timeNotIncreasing(line: lineNumber) }
                if sample.time - last.time > Self.maximumGap {
                    throw .timeOutOfRange(line: lineNumber, problem: "\(sample.time - last.time) s after the sample before it (at most a day)")
                }
            }
            if let first = samples.first, sample.time - first.time > Self.maximumSpan {
                throw .timeOutOfRange(line: lineNumber, problem: "\(sample.time - first.time) s after the first sample (a recording spans at most a year)")
            }
            samples.append(sample)
            if let reading = try Self.pressure(fields, index: index, line: lineNumber, rowTime: sample.time, after: pressures.last) {
                pressures.append(reading)
            }
        }
        if header == nil { throw .missingColumn(Self.timeColumn) }
        guard !samples.isEmpty else { throw .empty }
        self.samples = samples
        self.pressures = pressures
    }

    /// The barometer reading a row carries: nil when the recording has no barometer columns or
    /// the row's are empty. A reading must come at or before its row and after the reading before it.
    private static func pressure(
        _ fields: [Substring], index: [String: Int], line: Int, rowTime: Double, after previous: RecordedPressure?
    ) throws(RecordingError) -> RecordedPressure? {
        guard let timePosition = index[barometerTimeColumn], let pressurePosition = index[pressureColumn] else { return nil }
        func text(_ position: Int) -> String { fields[position].trimmingCharacters(in: .whitespaces) }
        guard !text(timePosition).isEmpty else { return nil }
        func number(_ column: String, _ position: Int) throws(RecordingError) -> Double {
            guard let value = DecimalNumber.parse(text(position)) else {
                throw .badValue(line: line, column: column, text: String(text(position).prefix(40)))
            }
            return value
        }
        let time = try number(barometerTimeColumn, timePosition)
        let kilopascal = try number(pressureColumn, pressurePosition)
        let temperature = try index[barometerTemperatureColumn].map { position throws(RecordingError) in
            try number(barometerTemperatureColumn, position)
        } ?? 25
        guard kilopascal > 0, kilopascal < 1100 else { throw .badPressure(line: line, kilopascal: kilopascal) }
        if time > rowTime + 1e-6 {
            throw .timeOutOfRange(line: line, problem: "barometer_time_s \(time) s is after the row's time \(rowTime) s")
        }
        if let previous, time <= previous.time { throw .timeNotIncreasing(line: line) }
        return RecordedPressure(time: time, pressure: kilopascal * 1000, temperature: temperature)
    }
}
