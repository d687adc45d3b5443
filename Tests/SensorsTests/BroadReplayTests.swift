import BroadData
import Foundation
import MotionSimulator
import Sensors
import TestSupport
import Testing

/// A BROAD trial replayed through the emulated chips and read back by the drivers gives back the
/// recorded values, quantized by each chip's resolution: the whole path (replay source → register
/// encoding → bus → driver decoding and scaling) adds no error beyond one LSB.
@Suite struct BroadReplayTests {
    /// Where the real trials live in CI: `../shared/data/broad` from the repository root.
    static let broadFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/data/broad").path

    static var firstRealTrial: String? {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: broadFolder) else { return nil }
        return files.filter { $0.hasSuffix(".csv") }.sorted().first.map { (broadFolder as NSString).appendingPathComponent($0) }
    }

    /// A board and whether its magnetometer's output follows the input at every read (the ST and
    /// QST chips) or holds the measurement taken at the first read after each of its ODR ticks
    /// (AK8963, HMC5883L).
    static let boards: [(SimulatedBoard.IMU, SimulatedBoard.MagnetometerChoice, magnetometerFollowsInput: Bool)] = [
        (.lsm6dsox, .usual, true), (.lsm6dsl, .chip(.lis2mdl), true), (.lsm6ds3, .chip(.hmc5883l), false),
        (.mpu6050, .usual, true), (.mpu6500, .chip(.lis3mdl), true), (.mpu9250, .none, false),
    ]

    @Test(arguments: boards)
    func aGeneratedBroadTrialReplayedThroughEmulatedChipsReproducesTheRecordedValuesWithinOneLSB(
        imu: SimulatedBoard.IMU, magnetometer: SimulatedBoard.MagnetometerChoice, magnetometerFollowsInput: Bool
    ) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broad-\(imu.rawValue)-\(UUID()).csv").path
        try Self.syntheticTrialCSV(rows: 400).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trial = try BroadTrial.load(path: path)
        #expect(trial.count == 400)
        try replay(trial, imu: imu, magnetometer: magnetometer, magnetometerFollowsInput: magnetometerFollowsInput)
    }

    @Test(.enabled(if: firstRealTrial != nil, "no BROAD data at ../shared/data/broad"))
    func theFirst2000SamplesOfARealBroadTrialReplayWithinOneLSB() throws {
        let path = try #require(Self.firstRealTrial)
        var trial = try BroadTrial.load(path: path)
        let count = min(2000, trial.count)
        trial.time = Array(trial.time.prefix(count))
        trial.gyroscope = Array(trial.gyroscope.prefix(count))
        trial.accelerometer = Array(trial.accelerometer.prefix(count))
        trial.magnetometer = Array(trial.magnetometer.prefix(count))
        try replay(trial, imu: .lsm6dsox, magnetometer: .usual, magnetometerFollowsInput: true)
        try replay(trial, imu: .mpu6050, magnetometer: .usual, magnetometerFollowsInput: true)
    }

    /// Reads the chips at every recorded time (virtual time set exactly to it) and compares.
    private func replay(
        _ trial: BroadTrial, imu: SimulatedBoard.IMU, magnetometer: SimulatedBoard.MagnetometerChoice,
        magnetometerFollowsInput: Bool, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let time = ManualTime(trial.time[0])
        // The chips show the recorded values at the instant of each read (no filter delay): this
        // compares the encoding and decoding alone.
        let rig = try EmulatedRig(
            imu: imu, magnetometer: magnetometer, source: ReplaySource(broad: trial), time: time,
            imuOptions: EmulatorOptions(filterDelay: false))
        let magnetometerDriver = try #require(rig.magnetometer)
        let recordingRate = 1 / trial.sampleInterval
        // How many recorded samples a latching magnetometer may lag behind.
        let outputDataRate = magnetometerDriver.configuration.outputDataRate
        let lagWindow = Int((recordingRate / outputDataRate).rounded(.up)) + 1

        var worstAccelerometer = 0.0, worstGyroscope = 0.0, worstMagnetometer = 0.0
        var comparedFields = 0
        for i in 0..<trial.count {
            time.set(trial.time[i])
            let sample = try rig.imu.readSample()
            let raw = try #require(sample.raw)
            #expect(!sample.isSaturated, sourceLocation: sourceLocation)
            let accelerometerLSB = PhysicalState.standardGravity / raw.accelerometerLSBPerG  // m/s²
            let gyroscopeLSB = Double.pi / 180 / raw.gyroscopeLSBPerDPS                     // rad/s
            worstAccelerometer = max(worstAccelerometer, maxAbs(specificForce(sample) - trial.accelerometer[i]) / accelerometerLSB)
            worstGyroscope = max(worstGyroscope, maxAbs(sample.rotationRate - trial.gyroscope[i]) / gyroscopeLSB)

            let field = try magnetometerDriver.readSample()
            let lsb = 1 / (try #require(field.raw)).lsbPerMicrotesla
            #expect(!field.isSaturated, sourceLocation: sourceLocation)
            // A latching chip has nothing to show before its first ODR tick after the configuration.
            guard magnetometerFollowsInput || trial.time[i] - trial.time[0] >= 1 / outputDataRate else { continue }
            // A latching chip shows one of the recent recorded samples: the closest one counts.
            let candidates = magnetometerFollowsInput ? i...i : max(0, i - lagWindow)...i
            let error = candidates.map { maxAbs((field.field - Self.inDieAxes(trial.magnetometer[$0], imu: imu)) / lsb) }.min() ?? .infinity
            worstMagnetometer = max(worstMagnetometer, error)
            comparedFields += 1
        }
        #expect(comparedFields >= trial.count - Int(recordingRate / outputDataRate) - 1, sourceLocation: sourceLocation)
        let chips = "\(imu.rawValue) + \(magnetometerDriver.chip.name)"
        #expect(worstAccelerometer <= 1, "\(chips): accelerometer off by \(worstAccelerometer) LSB", sourceLocation: sourceLocation)
        #expect(worstGyroscope <= 1, "\(chips): gyroscope off by \(worstGyroscope) LSB", sourceLocation: sourceLocation)
        #expect(worstMagnetometer <= 1, "\(chips): magnetometer off by \(worstMagnetometer) LSB", sourceLocation: sourceLocation)
    }

    /// The recorded field (the package's axes) as the magnetometer die reads it: the MPU-9250's
    /// AK8963 and the MPU-9150's AK8975 have their x along the package's y, their y along x, their
    /// z opposite (PS-MPU-9250A §9.1).
    static func inDieAxes(_ field: SIMD3<Double>, imu: SimulatedBoard.IMU) -> SIMD3<Double> {
        imu == .mpu9250 || imu == .mpu9150 ? SIMD3(field.y, field.x, -field.z) : field
    }

    /// A BROAD-format trial (header and columns of `../shared/data/broad/README.md`) at
    /// 285.714 Hz: a turning, shaken sensor in a 49 µT field with a board offset, six decimals as
    /// in the dataset, a reference quaternion lost on some rows.
    static func syntheticTrialCSV(rows: Int) -> String {
        var text = "t,gyr_x,gyr_y,gyr_z,acc_x,acc_y,acc_z,mag_x,mag_y,mag_z,opt_w,opt_x,opt_y,opt_z,movement\n"
        var noise = FixedSeedNoise(seed: 4)
        for i in 0..<rows {
            let t = Double(i) / 285.714
            let w = 2 * Double.pi
            let gyroscope = SIMD3(1.5 * sin(w * 0.7 * t), -2.0 * cos(w * 0.5 * t), 0.8 * sin(w * 1.3 * t + 0.4))
                + SIMD3(noise.symmetric(), noise.symmetric(), noise.symmetric()) * 0.01
            let accelerometer = SIMD3(3 * sin(w * 1.1 * t), -2.5 * cos(w * 0.9 * t), 9.81 + 4 * sin(w * 0.6 * t))
                + SIMD3(noise.symmetric(), noise.symmetric(), noise.symmetric()) * 0.05
            let magnetometer = SIMD3(20.7 + 15 * sin(w * 0.4 * t), -5 + 18 * cos(w * 0.3 * t), -44.4 + 6 * sin(w * 0.2 * t))
                + SIMD3(noise.symmetric(), noise.symmetric(), noise.symmetric()) * 0.3
            let half = 0.2 * t
            let reference = i % 50 < 5 ? "nan,nan,nan,nan" : String(format: "%.6f,%.6f,%.6f,%.6f", cos(half), 0.0, 0.0, sin(half))
            let values = [gyroscope.x, gyroscope.y, gyroscope.z, accelerometer.x, accelerometer.y, accelerometer.z,
                          magnetometer.x, magnetometer.y, magnetometer.z].map { String(format: "%.6f", $0) }
            text += String(format: "%.6f,", t) + values.joined(separator: ",") + ",\(reference),\(i > 100 ? 1 : 0)\n"
        }
        return text
    }
}

private func maxAbs(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

