import ArgumentParser
import Dispatch
import Foundation
import Fusion
import Motion
import Timing

/// `motionctl stream`: samples to standard output, one row per sample, a header naming every
/// column and its unit.
struct StreamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Stream sensor readings or fused device motion to standard output (CSV or JSON lines).")

    @OptionGroup var source: SourceOptions

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl }
    enum Kind: String, EnumerableFlag { case raw, deviceMotion }

    @Option(parsing: .unconditional, help: "Samples per second (one a day to 100).") var rate: Double = 100
    @Option(parsing: .unconditional, help: "Stop after this many samples.") var count: Int?
    @Option(parsing: .unconditional, help: "Stop after this many seconds. Default: in virtual time, the scenario's length; else until Ctrl-C.")
    var duration: Double?
    @Option(help: "csv or jsonl.") var format: Format = .csv
    @Flag(help: "Raw sensors (default) or fused device motion.") var kind: Kind = .raw

    func validate() throws {
        try OptionRange.check(rate, "--rate", in: OptionRange.slowestRate...100, unit: "Hz")
        try OptionRange.check(count, "--count", in: OptionRange.count)
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting {
            let opened = try source.open(defaultScenario: "tumble")
            // In virtual time the run would never end by itself: the scenario's length at most.
            let length = opened.virtualClock == nil || count != nil ? nil : opened.scenarioLength
            try StreamSession(manager: opened.manager, format: format, kind: kind, interval: 1 / rate, count: count)
                .run(runner: opened.runner(duration: duration ?? length))
        }
    }
}

/// The streaming itself, outside the command (handlers must not be main-actor isolated).
struct StreamSession: Sendable {
    let manager: MotionManager
    let format: StreamCommand.Format
    let kind: StreamCommand.Kind
    let interval: Double
    let count: Int?

    func run(runner: UpdateRunner) throws {
        let output = OutputLines()
        let queue = DispatchQueue(label: "motionctl.stream")
        let chipAttitude = manager.isChipAttitudeAvailable
        let columns = kind == .raw
            ? Self.rawColumns(magnetometer: manager.isMagnetometerAvailable)
            : Self.motionColumns + (manager.isMagnetometerAvailable ? Self.backgroundCalibrationColumns : [])
                + (chipAttitude ? Self.chipAttitudeColumns : [])
        let magnetometer = manager.isMagnetometerAvailable
        if format == .csv { output.write(columns.joined(separator: ",")) }
        let limit = count.map { $0 + (format == .csv ? 1 : 0) } ?? .max   // --count ≤ 10¹²: no overflow
        let emit: @Sendable ([MachineOutput.Value]) -> Void = { values in
            guard output.count < limit else { return }
            output.write(format == .csv ? MachineOutput.csvLine(values) : MachineOutput.jsonLine(columns, values))
        }
        let errors: @Sendable (MotionError) -> Void = { error in
            FileHandle.standardError.write(Data("motionctl: \(error)\n".utf8))
        }
        switch kind {
        case .raw:
            manager.sensorUpdateInterval = interval
            manager.startSensorUpdates(to: queue) { data, error in
                if let data { emit(Self.row(data)) }
                if let error { errors(error) }
            }
        case .deviceMotion:
            manager.deviceMotionUpdateInterval = interval
            let frame: AttitudeReferenceFrame = manager.isMagnetometerAvailable ? .xMagneticNorthZVertical : .xArbitraryZVertical
            manager.startDeviceMotionUpdates(using: frame, to: queue) { motion, error in
                if let motion {
                    emit(Self.row(motion) + (magnetometer ? Self.backgroundCalibrationRow(manager.backgroundCalibrationStatus) : [])
                        + (chipAttitude ? Self.chipAttitudeRow(motion) : []))
                }
                if let error { errors(error) }
            }
        }
        let interrupted = runner.run(isDone: { output.count >= limit || output.error != nil }, drain: { queue.sync {} })
        manager.stopSensorUpdates()
        manager.stopDeviceMotionUpdates()
        queue.sync {}
        if let error = output.error { throw error }
        if interrupted { throw Interruption.exit("\(output.count - (format == .csv ? 1 : 0)) rows written") }
    }

    static func rawColumns(magnetometer: Bool) -> [String] {
        ["timestamp_s", "acc_x_g", "acc_y_g", "acc_z_g", "rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s"]
            + (magnetometer ? ["mag_x_uT", "mag_y_uT", "mag_z_uT"] : [])
    }

    static let motionColumns = [
        "timestamp_s", "roll_rad", "pitch_rad", "yaw_rad", "qw", "qx", "qy", "qz",
        "gravity_x_g", "gravity_y_g", "gravity_z_g", "user_acc_x_g", "user_acc_y_g", "user_acc_z_g",
        "rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s", "heading_deg", "mag_x_uT", "mag_y_uT", "mag_z_uT", "mag_accuracy",
    ]

    /// One row (``MachineOutput``): the magnetometer's columns only when the board has one.
    static func row(_ data: SensorData) -> [MachineOutput.Value] {
        var values: [MachineOutput.Value] = [.time(data.timestamp)] + numbers(data.acceleration) + numbers(data.rotationRate)
        if let field = data.magneticField { values += numbers(field) }
        return values
    }

    /// One row (``MachineOutput``); the heading is missing (empty, null) without a magnetic
    /// reference, where Core Motion's property reads -1.
    static func row(_ motion: DeviceMotion) -> [MachineOutput.Value] {
        let q = motion.attitude.quaternion
        let heading: MachineOutput.Value = motion.heading >= 0 ? .number(motion.heading) : .missing
        return [.time(motion.timestamp)] + [motion.attitude.roll, motion.attitude.pitch, motion.attitude.yaw, q.w, q.x, q.y, q.z].map { .number($0) }
            + numbers(motion.gravity) + numbers(motion.userAcceleration) + numbers(motion.rotationRate)
            + [heading] + numbers(motion.magneticField.field) + [.name(motion.magneticField.accuracy.storedName)]
    }

    /// With a magnetometer: the background calibration's progress (its offset's σ in µT, the
    /// heading σ it gives in degrees, and its state: calibrated, learning, needsRotation,
    /// disturbed, relearning); missing before the first estimate.
    static let backgroundCalibrationColumns = ["mag_cal_sigma_uT", "mag_cal_heading_sigma_deg", "mag_cal_state"]

    static func backgroundCalibrationRow(_ status: HardIronEstimator.Status?) -> [MachineOutput.Value] {
        guard let status else { return [.missing, .missing, .missing] }
        return [.number(status.sigma), .number(status.headingSigma), .name(status.reason.rawValue)]
    }

    /// With a chip that fuses its sensors itself: its attitude next to ours, in the same frame,
    /// and the angle between the two.
    static let chipAttitudeColumns = [
        "chip_roll_rad", "chip_pitch_rad", "chip_yaw_rad", "chip_qw", "chip_qx", "chip_qy", "chip_qz", "chip_vs_ours_deg",
    ]

    /// The chip's attitude columns; missing (empty, null) in a sample without one.
    static func chipAttitudeRow(_ motion: DeviceMotion) -> [MachineOutput.Value] {
        guard let chip = motion.chipAttitude else { return Array(repeating: .missing, count: chipAttitudeColumns.count) }
        let q = chip.quaternion
        let difference = chip.quaternion.angle(to: motion.attitude.quaternion) * 180 / .pi
        return [chip.roll, chip.pitch, chip.yaw, q.w, q.x, q.y, q.z, difference].map { .number($0) }
    }

    static func numbers(_ v: SIMD3<Double>) -> [MachineOutput.Value] { [.number(v.x), .number(v.y), .number(v.z)] }
}


extension SIMD3 where Scalar == Double {
    var array: [Double] { [x, y, z] }
}
