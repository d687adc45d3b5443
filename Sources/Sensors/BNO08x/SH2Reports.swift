/// The SH-2 reports this driver sends and parses. Checked (BNO08xFactsTests) against the BNO080
/// datasheet 1000-3927 (§1.4.2, §1.4.5, §5) and CEVA's sh2 library as adafruit/Adafruit_BNO08x
/// vendors it (src/sh2.h report IDs `SH2_*`; src/sh2_SensorValue.c the byte offsets and Q points
/// each `decode*` uses), with the report lengths of Adafruit_CircuitPython_BNO08x
/// (`_AVAIL_SENSOR_REPORTS`).
package enum SH2Report: UInt8, Sendable, CaseIterable {
    /// Accelerometer: m/s², Q8, gravity included (1000-3927 Figure 5-2; sh2_SensorValue.c).
    case accelerometer = 0x01
    /// Gyroscope, calibrated: rad/s, Q9 (1000-3927 Figure 1-34; sh2_SensorValue.c).
    case gyroscope = 0x02
    /// Magnetic field, calibrated: µT, Q4.
    case magneticField = 0x03
    /// Linear acceleration (gravity removed): m/s², Q8.
    case linearAcceleration = 0x04
    /// Rotation vector (accelerometer, gyroscope, magnetometer): unit quaternion i, j, k, real,
    /// Q14, then the heading accuracy estimate, radians, Q12.
    case rotationVector = 0x05
    /// Gravity: m/s², Q8.
    case gravity = 0x06
    /// Gyroscope, uncalibrated: rad/s, Q9, then the bias estimate, rad/s, Q9.
    case uncalibratedGyroscope = 0x07
    /// Game rotation vector (no magnetometer): unit quaternion i, j, k, real, Q14.
    case gameRotationVector = 0x08
    /// Magnetic field, uncalibrated: µT, Q4, then the hard-iron estimate, µT, Q4.
    case uncalibratedMagneticField = 0x0F
    /// Step counter: detect latency (µs, 32 bits), steps (16 bits), reserved (16 bits)
    /// (sh2_SensorValue.h `sh2_StepCounter`: steps 16 bits; the CircuitPython library reads them
    /// at byte 8 as 16 bits).
    case stepCounter = 0x11
    /// Stability classifier: the class (8 bits), reserved (8 bits).
    case stabilityClassifier = 0x13

    /// Bytes of the report, its 4-byte common header (ID, sequence number, status, delay) included
    /// (1000-3927 Figures 1-34 and 5-2; Adafruit_CircuitPython_BNO08x `_AVAIL_SENSOR_REPORTS`; the
    /// uncalibrated reports' bias ends at byte 16 in sh2_SensorValue.c).
    package var length: Int {
        switch self {
        case .accelerometer, .gyroscope, .magneticField, .linearAcceleration, .gravity: 10
        case .rotationVector: 14
        case .gameRotationVector, .stepCounter: 12
        case .uncalibratedGyroscope, .uncalibratedMagneticField: 16
        case .stabilityClassifier: 6
        }
    }

    /// The Q point of the report's values (sh2_SensorValue.c `SCALE_Q(n)` in each decoder;
    /// CircuitPython `_Q_POINT_*_SCALAR`): value = count / 2^q.
    package var qPoint: Int {
        switch self {
        case .accelerometer, .linearAcceleration, .gravity: 8
        case .gyroscope, .uncalibratedGyroscope: 9
        case .magneticField, .uncalibratedMagneticField: 4
        case .rotationVector, .gameRotationVector: 14
        case .stepCounter, .stabilityClassifier: 0
        }
    }
}

/// The control reports of the SH-2 protocol this driver uses (1000-3927 Figure 1-30 and §1.4.5.3;
/// sh2.c `SENSORHUB_*`).
enum SH2Control {
    /// Set Feature command: ID, report ID, feature flags, change sensitivity (16 bits), report
    /// interval (µs, 32 bits), batch interval (µs, 32 bits), sensor-specific configuration (32
    /// bits): 17 bytes (1000-3927 Figure 5-1; sh2.c `SetFeatureReport_t`).
    static let setFeature: UInt8 = 0xFD
    static let setFeatureLength = 17
    /// Get Feature Response: the Set Feature layout, sent by the hub when a feature changes.
    static let getFeatureResponse: UInt8 = 0xFC
    /// Product ID Request: ID, reserved (1000-3927 Figure 1-28; sh2.c `ProdIdReq_t`).
    static let productIDRequest: UInt8 = 0xF9
    /// Product ID Response: ID, reset cause, software version major, minor, part number (32
    /// bits), build number (32 bits), version patch (16 bits), reserved: 16 bytes
    /// (1000-3927 Figure 1-29; sh2.c `ProdIdResp_t`).
    static let productIDResponse: UInt8 = 0xF8
    static let productIDResponseLength = 16
    /// Base Timestamp Reference: ID, base delta (signed 32 bits, 100 µs ticks) from the
    /// transport's reference point (the host interrupt) back to the reports that follow
    /// (1000-3927 Figure 1-35: "Signed"; sh2.c declares it unsigned but negates it all the same).
    static let baseTimestamp: UInt8 = 0xFB
    /// Timestamp Rebase: ID, rebase delta (signed 32 bits, 100 µs ticks) added to the base for
    /// the reports after it (sh2.c `TimestampRebase_t`, int32, added to the reference delta).
    static let timestampRebase: UInt8 = 0xFA
    static let timebaseLength = 5
    /// One tick of the base delta, the rebase delta and a report's delay, s (1000-3927 §1.4.5.3:
    /// "Delay has a resolution of 100µs"; sh2.c multiplies by 100 µs).
    static let tick = 100e-6

    /// The Set Feature command for `report` every `interval` µs (0: off), no batching, no flags.
    static func setFeature(_ report: SH2Report, interval microseconds: UInt32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: setFeatureLength)
        bytes[0] = setFeature
        bytes[1] = report.rawValue
        for index in 0..<4 { bytes[5 + index] = UInt8(truncatingIfNeeded: microseconds >> (8 * UInt32(index))) }
        return bytes
    }

    static let productIDRequestCargo: [UInt8] = [productIDRequest, 0]
}

/// What the hub's stability classifier says (sh2_SensorValue.h `STABILITY_CLASSIFIER_*`: 0 unknown,
/// 1 on table, 2 stationary, 3 stable, 4 in motion; the class at byte 4).
package enum SH2Stability: UInt8, Sendable, Equatable {
    case unknown = 0
    case onTable = 1
    case stationary = 2
    case stable = 3
    case inMotion = 4
}

/// The hub's software as its Product ID Response gives it.
package struct SH2ProductID: Sendable, Equatable {
    package var resetCause: UInt8
    package var versionMajor: UInt8
    package var versionMinor: UInt8
    package var partNumber: UInt32
    package var buildNumber: UInt32
    package var versionPatch: UInt16

    /// The response in `cargo` (starting at its 0xF8); nil when it is not one.
    init?(_ cargo: ArraySlice<UInt8>) {
        guard cargo.count >= SH2Control.productIDResponseLength, cargo.first == SH2Control.productIDResponse else { return nil }
        let bytes = Array(cargo.prefix(SH2Control.productIDResponseLength))
        resetCause = bytes[1]
        versionMajor = bytes[2]
        versionMinor = bytes[3]
        partNumber = SH2Parse.uint32(bytes, at: 4)
        buildNumber = SH2Parse.uint32(bytes, at: 8)
        versionPatch = UInt16(bytes[12]) | UInt16(bytes[13]) << 8
    }
}

/// One input report as parsed, in SI units and the chip's axes.
package struct SH2Reading: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        /// m/s² (accelerometer, linear acceleration, gravity), rad/s (gyroscopes), µT (fields).
        case vector(SIMD3<Double>)
        /// The uncalibrated gyroscope or field and the hub's bias estimate for it.
        case uncalibrated(SIMD3<Double>, bias: SIMD3<Double>)
        /// w, x, y, z: chip axes → the hub's East-North-Up (i, j, k, real at bytes 4–11,
        /// sh2_SensorValue.c), and the
        /// heading accuracy estimate in radians (nil for the game rotation vector).
        case quaternion(SIMD4<Double>, headingAccuracy: Double?)
        case steps(UInt16)
        case stability(SH2Stability)
    }

    package var report: SH2Report
    /// The report's own sequence number (one counter per report ID, modulo 256).
    package var sequence: UInt8
    /// Status bits 1:0: 0 unreliable, 1 low, 2 medium, 3 high accuracy.
    package var accuracy: UInt8
    /// When the hub took it: seconds after the transport's reference point (negative: before),
    /// from the base timestamp, any rebase and the report's own delay.
    package var time: Double
    package var value: Value
}

/// The parsing of an input-report cargo: a Base Timestamp Reference, then reports, any Timestamp
/// Rebase among them (1000-3927 §1.4.5.3 and Figure 5-2; sh2.c `sensorhubInputHdlr`).
enum SH2Parse {
    static func int16(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int) -> Int16 {
        let start = bytes.index(bytes.startIndex, offsetBy: offset)
        return Int16(bitPattern: UInt16(bytes[start]) | UInt16(bytes[bytes.index(after: start)]) << 8)
    }

    static func uint32(_ bytes: some RandomAccessCollection<UInt8>, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for index in 0..<4 {
            value |= UInt32(bytes[bytes.index(bytes.startIndex, offsetBy: offset + index)]) << (8 * UInt32(index))
        }
        return value
    }

    /// Appends the readings in an input-report cargo, in order; returns the count of bytes it could
    /// not parse as reports (an unknown ID ends the parse: its length is unknown).
    static func readings(_ cargo: [UInt8], into readings: inout [SH2Reading]) -> Int {
        var offset = 0
        var base = 0.0
        while offset < cargo.count {
            let id = cargo[offset]
            if id == SH2Control.baseTimestamp || id == SH2Control.timestampRebase {
                guard offset + SH2Control.timebaseLength <= cargo.count else { return cargo.count - offset }
                let delta = Double(Int32(bitPattern: uint32(cargo, at: offset + 1))) * SH2Control.tick
                // The base points back from the reference (subtracted); a rebase moves it on (added).
                base = id == SH2Control.baseTimestamp ? -delta : base + delta
                offset += SH2Control.timebaseLength
                continue
            }
            guard let report = SH2Report(rawValue: id), offset + report.length <= cargo.count else {
                return cargo.count - offset
            }
            let bytes = cargo[offset..<(offset + report.length)]
            readings.append(reading(report, bytes, base: base))
            offset += report.length
        }
        return 0
    }

    /// One report of `report`'s length; its common header is ID, sequence, status (accuracy in
    /// bits 1:0, the delay's upper 6 bits in 7:2), delay's lower 8 bits (1000-3927 Figure 1-34:
    /// the delay in 100 µs ticks after the base).
    static func reading(_ report: SH2Report, _ bytes: ArraySlice<UInt8>, base: Double) -> SH2Reading {
        let start = bytes.startIndex
        let status = bytes[start + 2]
        let delay = Int(status >> 2) << 8 | Int(bytes[start + 3])
        let scale = 1 / Double(1 << report.qPoint)
        func vector(at offset: Int, scale: Double) -> SIMD3<Double> {
            SIMD3(Double(int16(bytes, at: offset)), Double(int16(bytes, at: offset + 2)), Double(int16(bytes, at: offset + 4))) * scale
        }
        let value: SH2Reading.Value = switch report {
        case .accelerometer, .gyroscope, .magneticField, .linearAcceleration, .gravity:
            .vector(vector(at: 4, scale: scale))
        case .uncalibratedGyroscope, .uncalibratedMagneticField:
            .uncalibrated(vector(at: 4, scale: scale), bias: vector(at: 10, scale: scale))
        case .rotationVector, .gameRotationVector:
            .quaternion(
                SIMD4(Double(int16(bytes, at: 10)), Double(int16(bytes, at: 4)), Double(int16(bytes, at: 6)), Double(int16(bytes, at: 8))) * scale,
                // The heading accuracy estimate is Q12 (sh2_SensorValue.c decodeRotationVector).
                headingAccuracy: report == .rotationVector ? Double(int16(bytes, at: 12)) / 4096 : nil)
        case .stepCounter:
            .steps(UInt16(bytes[start + 8]) | UInt16(bytes[start + 9]) << 8)
        case .stabilityClassifier:
            .stability(SH2Stability(rawValue: bytes[start + 4]) ?? .unknown)
        }
        return SH2Reading(
            report: report, sequence: bytes[start + 1], accuracy: status & 0x03,
            time: base + Double(delay) * SH2Control.tick, value: value)
    }
}
