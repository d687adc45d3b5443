import FileAccess
import Foundation

/// One trial of BROAD (Laidig, Caruso, Cereatti, Seel, "BROAD — A Benchmark for Robust Inertial
/// Orientation Estimation", Data 6(7), 2021, CC BY 4.0) in the project's CSV form: a header and one
/// row per sample with `t, gyr_x…z (rad/s), acc_x…z (m/s², +9.81 on z when flat), mag_x…z (µT),
/// opt_w…z (reference quaternion sensor → ENU, nan when missing), movement (0/1)`.
package struct BroadTrial: Sendable {
    /// Trial name (file name without `.csv`).
    package var name: String
    /// Time from the start of the trial, s.
    package var time: [Double]
    /// Rotation rate, rad/s, sensor frame.
    package var gyroscope: [SIMD3<Double>]
    /// Specific force, m/s² (+9.81 on z lying flat; the opposite of Core Motion's sign).
    package var accelerometer: [SIMD3<Double>]
    /// Magnetic field, µT, sensor frame.
    package var magnetometer: [SIMD3<Double>]
    /// Optical reference orientation sensor → ENU as (w, x, y, z); NaN where markers were lost.
    package var reference: [SIMD4<Double>]
    /// True where the sample counts for the error metric.
    package var movement: [Bool]

    /// Number of samples.
    package var count: Int { time.count }

    /// Mean sample interval, s.
    package var sampleInterval: Double {
        count > 1 ? (time[count - 1] - time[0]) / Double(count - 1) : 0
    }

    /// How many samples `seconds` spans at the mean interval, rounded, within 1…``count`` (1 where
    /// the times do not advance): range-checked before it becomes an Int.
    package func samples(spanning seconds: Double) -> Int {
        let ratio = (seconds / sampleInterval).rounded()
        guard ratio.isFinite, ratio > 1 else { return 1 }
        return Int(min(ratio, Double(max(count, 1))))
    }

    /// Every `factor`-th sample from the first: the same recording at 1/`factor` of its rate (the
    /// sensor's own samples, not filtered: what a slower sampler of the same chip would have read).
    package func decimated(by factor: Int) -> BroadTrial {
        guard factor > 1 else { return self }
        func every<T>(_ values: [T]) -> [T] { stride(from: 0, to: values.count, by: factor).map { values[$0] } }
        return BroadTrial(
            name: name, time: every(time), gyroscope: every(gyroscope), accelerometer: every(accelerometer),
            magnetometer: every(magnetometer), reference: every(reference), movement: every(movement))
    }

    /// The trial as BROAD's CSV (the columns ``load(path:)`` reads), e.g. to score a decimated copy
    /// with other tools.
    package func csv() -> String {
        var text = Self.columns.joined(separator: ",") + "\n"
        text.reserveCapacity(count * 200)
        for i in 0..<count {
            let g = gyroscope[i], a = accelerometer[i], m = magnetometer[i], q = reference[i]
            let values = [time[i], g.x, g.y, g.z, a.x, a.y, a.z, m.x, m.y, m.z, q[0], q[1], q[2], q[3]]
            text += values.map { "\($0)" }.joined(separator: ",") + (movement[i] ? ",1\n" : ",0\n")
        }
        return text
    }

    static let columns = [
        "t", "gyr_x", "gyr_y", "gyr_z", "acc_x", "acc_y", "acc_z", "mag_x", "mag_y", "mag_z",
        "opt_w", "opt_x", "opt_y", "opt_z", "movement",
    ]

    /// Reads a trial CSV. Throws `BroadError` naming the file, line and column of a malformed value.
    package static func load(path: String) throws(BroadError) -> BroadTrial {
        let data: Data
        do throws(FileContents.Failure) {
            data = try FileContents.read(path, what: "a BROAD trial (a CSV file)", limit: FileContents.Limit.broadTrial)
        } catch {
            throw BroadError(file: path, line: 0, column: nil, problem: error.description)
        }
        let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        var trial = BroadTrial(
            name: name, time: [], gyroscope: [], accelerometer: [], magnetometer: [], reference: [], movement: [])
        let result: Result<Void, BroadError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            do throws(BroadError) {
                try trial.parse(bytes, path: path)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return trial
    }

    private mutating func parse(_ bytes: UnsafeBufferPointer<UInt8>, path: String) throws(BroadError) {
        var index = 0
        // Header: exactly the expected column names.
        var headerEnd = 0
        while headerEnd < bytes.count && bytes[headerEnd] != UInt8(ascii: "\n") { headerEnd += 1 }
        let header = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<headerEnd]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let names = header.split(separator: ",").map(String.init)
        guard names == Self.columns else {
            throw BroadError(file: path, line: 1, column: nil,
                problem: "header is \"\(header)\", expected \"\(Self.columns.joined(separator: ","))\"")
        }
        index = headerEnd + 1
        let estimate = bytes.count / 140 + 16
        time.reserveCapacity(estimate)
        gyroscope.reserveCapacity(estimate)
        accelerometer.reserveCapacity(estimate)
        magnetometer.reserveCapacity(estimate)
        reference.reserveCapacity(estimate)
        movement.reserveCapacity(estimate)

        var line = 1
        var row = [Double](repeating: 0, count: 15)
        while index < bytes.count {
            line += 1
            // Skip empty lines (e.g. a trailing newline).
            if bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") {
                index += 1
                continue
            }
            for column in 0..<15 {
                guard let (value, next) = Self.parseNumber(bytes, from: index) else {
                    throw BroadError(file: path, line: line, column: Self.columns[column],
                        problem: "\"\(Self.field(bytes, from: index))\" is not a number")
                }
                row[column] = value
                index = next
                let expected = column == 14 ? UInt8(ascii: "\n") : UInt8(ascii: ",")
                if column == 14 && index < bytes.count && bytes[index] == UInt8(ascii: "\r") { index += 1 }
                if index < bytes.count {
                    guard bytes[index] == expected else {
                        let problem = column == 14
                            ? "more than \(Self.columns.count) values in the row"
                            : "\"\(Self.field(bytes, from: index))\" is not a number, or the row has too few values"
                        throw BroadError(file: path, line: line, column: Self.columns[column], problem: problem)
                    }
                    index += 1
                } else if column != 14 {
                    throw BroadError(file: path, line: line, column: Self.columns[column + 1], problem: "file ends inside the row")
                }
            }
            time.append(row[0])
            gyroscope.append(SIMD3(row[1], row[2], row[3]))
            accelerometer.append(SIMD3(row[4], row[5], row[6]))
            magnetometer.append(SIMD3(row[7], row[8], row[9]))
            reference.append(SIMD4(row[10], row[11], row[12], row[13]))
            movement.append(row[14] > 0.5)
        }
        if time.isEmpty {
            throw BroadError(file: path, line: line, column: nil, problem: "no samples after the header")
        }
    }

    /// The text of the field starting at `index`, for error messages.
    private static func field(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> String {
        var end = index
        while end < bytes.count && bytes[end] != UInt8(ascii: ",") && bytes[end] != UInt8(ascii: "\n") && end - index < 40 {
            end += 1
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
    }

    private static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A decimal number (`-12.345`, `1e-3`, `nan`) at `index`; the value and the index after it.
    /// Exact (correctly rounded) for up to 15 significant digits and |exponent| ≤ 22, which covers
    /// the dataset; longer mantissas lose at most an ulp or two.
    @inline(__always)
    private static func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (Double, Int)? {
        var i = start
        let n = bytes.count
        guard i < n else { return nil }
        var negative = false
        if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
            negative = bytes[i] == UInt8(ascii: "-")
            i += 1
        }
        if i + 2 < n, bytes[i] | 0x20 == UInt8(ascii: "n"), bytes[i + 1] | 0x20 == UInt8(ascii: "a"),
            bytes[i + 2] | 0x20 == UInt8(ascii: "n") {
            return (Double.nan, i + 3)
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[i] &- UInt8(ascii: "0")); if mantissa > 0 { digits += 1 } } else { exponent += 1 }
            sawDigit = true
            i += 1
        }
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
                if digits < 19 {
                    mantissa = mantissa * 10 + UInt64(bytes[i] &- UInt8(ascii: "0"))
                    if mantissa > 0 { digits += 1 }
                    exponent -= 1
                }
                sawDigit = true
                i += 1
            }
        }
        guard sawDigit else { return nil }
        if i < n, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            var exponentNegative = false
            if i < n, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
                exponentNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var value = 0
            var sawExponentDigit = false
            while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
                if value < 10_000 { value = value * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                sawExponentDigit = true
                i += 1
            }
            guard sawExponentDigit else { return nil }
            exponent += exponentNegative ? -value : value
        }
        var result = Double(mantissa)
        var remaining = exponent
        while remaining > 22 { result *= 1e22; remaining -= 22 }
        while remaining < -22 { result /= 1e22; remaining += 22 }
        result = remaining >= 0 ? result * powersOfTen[remaining] : result / powersOfTen[-remaining]
        return (negative ? -result : result, i)
    }
}

/// A BROAD file that cannot be used, with where and why.
package struct BroadError: Error, Sendable, CustomStringConvertible {
    /// Path of the file.
    package var file: String
    /// 1-based line number; 0 when the whole file is concerned.
    package var line: Int
    /// Column name, when one value is concerned.
    package var column: String?
    /// What is wrong.
    package var problem: String

    package var description: String {
        var place = file
        if line > 0 { place += ":\(line)" }
        if let column { place += " column \(column)" }
        return "\(place): \(problem)"
    }
}

/// The BROAD trial list (`index.json`): name, group, samples and rate of each trial.
package struct BroadIndexEntry: Sendable, Decodable {
    package var trial: String
    /// `undisturbed` or `disturbed`.
    package var group: String
    package var samples: Int?
    package var samplingRateHz: Double?

    enum CodingKeys: String, CodingKey {
        case trial, group, samples
        case samplingRateHz = "sampling_rate_hz"
    }

    /// The kind of motion or disturbance the trial shows, from its name (BROAD names every trial
    /// after it, e.g. `28_disturbed_stationary_magnet_A`): what a leave-one-kind-out
    /// cross-validation holds out together. A name that matches no known kind is a kind of its own.
    package var kind: String {
        let name = trial.lowercased()
        // Most specific first: `fast_rotation_with_breaks` is a fast rotation.
        let kinds: [(pattern: String, kind: String)] = [
            ("slow_rotation", "slow rotation"), ("fast_rotation", "fast rotation"), ("translation", "translation"),
            ("combined", "combined rotation and translation"), ("tapping", "tapping"), ("vibration", "vibration"),
            ("stationary_magnet", "stationary magnet"), ("attached_magnet", "attached magnet"),
        ]
        return kinds.first { name.contains($0.pattern) }?.kind ?? trial
    }

    /// The trials of a BROAD folder: from `index.json` when present, else every `*.csv` (group
    /// from the name). Throws when the folder is missing, empty or the index is malformed.
    package static func load(directory: String) throws(BroadError) -> [BroadIndexEntry] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw BroadError(file: directory, line: 0, column: nil, problem: "no such folder")
        }
        let indexPath = (directory as NSString).appendingPathComponent("index.json")
        if FileManager.default.fileExists(atPath: indexPath) {
            let data: Data
            do throws(FileContents.Failure) {
                data = try FileContents.read(indexPath, what: "a BROAD index.json", limit: FileContents.Limit.broadIndex)
            } catch {
                throw BroadError(file: indexPath, line: 0, column: nil, problem: error.description)
            }
            do {
                return try JSONDecoder().decode([BroadIndexEntry].self, from: data)
            } catch {
                throw BroadError(file: indexPath, line: 0, column: nil, problem: "malformed index: \(error)")
            }
        }
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".csv") }.sorted()
        } catch {
            throw BroadError(file: directory, line: 0, column: nil, problem: "cannot be listed (\(error.localizedDescription)); check its permissions")
        }
        guard !files.isEmpty else {
            throw BroadError(file: directory, line: 0, column: nil, problem: "neither index.json nor any .csv trial")
        }
        return files.map { file in
            let name = String(file.dropLast(4))
            return BroadIndexEntry(trial: name, group: name.contains("undisturbed") ? "undisturbed" : "disturbed")
        }
    }
}

/// The BROAD error metric, degrees. For each sample (both sensor → ENU, scalar first)
/// `e = q_est ⊗ conj(q_ref)`: total = 2 acos|e.w|, heading = 2 atan|e.z / e.w|,
/// inclination = 2 acos √(e.w² + e.z²). Per trial: RMSE over samples with `movement` whose
/// reference is known.
package struct BroadMetric: Sendable, Equatable {
    /// RMSE of the total orientation error, degrees (the 9D score).
    package var total: Double
    /// RMSE of the heading error, degrees.
    package var heading: Double
    /// RMSE of the inclination error, degrees (the 6D score).
    package var inclination: Double
    /// Samples that counted.
    package var samples: Int
}

// In an extension, so that Swift still writes the memberwise initialiser.
extension BroadMetric {
    /// Scores estimates (w, x, y, z; sensor → ENU; one per sample of `trial`).
    package init(estimates: [SIMD4<Double>], trial: BroadTrial) {
        precondition(estimates.count == trial.count, "one estimate per sample")
        var total = 0.0, heading = 0.0, inclination = 0.0
        var counted = 0
        let degrees = 180 / Double.pi
        for i in 0..<trial.count where trial.movement[i] {
            let reference = trial.reference[i]
            guard !any(reference .!= reference) else { continue }   // NaN: markers lost
            let e = Self.error(estimates[i], reference)
            total += e.total * e.total
            heading += e.heading * e.heading
            inclination += e.inclination * e.inclination
            counted += 1
        }
        let n = Double(max(counted, 1))
        self.init(total: (total / n).squareRoot() * degrees, heading: (heading / n).squareRoot() * degrees,
            inclination: (inclination / n).squareRoot() * degrees, samples: counted)
    }

    /// Total, heading and inclination error of one estimate against one reference, radians.
    package static func error(_ estimate: SIMD4<Double>, _ reference: SIMD4<Double>)
        -> (total: Double, heading: Double, inclination: Double) {
        let a = estimate / (estimate * estimate).sum().squareRoot()
        let b = reference / (reference * reference).sum().squareRoot()
        // e = a ⊗ conj(b); the SIMD4 lanes hold (w, x, y, z).
        let w = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]
        let z = -a[0] * b[3] - a[1] * b[2] + a[2] * b[1] + a[3] * b[0]
        let absW = abs(w)
        let total = 2 * acos(min(absW, 1))
        let heading = 2 * atan(abs(z / (w == 0 ? 1e-300 : w)))
        let inclination = 2 * acos(min((w * w + z * z).squareRoot(), 1))
        return (total, heading, inclination)
    }
}
