import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import FieldCalibration
import Fusion
import Motion
import MotionFormats
import MotionSimulation
import MotionTools
import Timing

/// `motionctl stream`: samples to standard output, one row per sample, a header naming every
/// column and its unit.
struct StreamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Stream sensor readings or fused device motion to standard output (CSV or JSON lines).")

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, jsonl }
    enum Kind: String, EnumerableFlag { case raw, deviceMotion }

    @Option(parsing: .unconditional, help: "Samples per second (one a day to 100).", transform: OptionRange.decimal) var rate: Double = 100
    @Option(parsing: .unconditional, help: "Stop after this many samples.") var count: Int?
    @Option(parsing: .unconditional, help: "Stop after this many seconds. Default: in virtual time, the scenario's length; else until Ctrl-C.", transform: OptionRange.decimal)
    var duration: Double?
    @Option(help: "csv or jsonl.") var format: Format = .csv
    @Flag(help: "Raw sensors (default) or fused device motion.") var kind: Kind = .raw
    @Flag(help: "Read the IMU through its FIFO at the chip's output data rate, each sample timed by the chip's clock (rows still at --rate).")
    var fifo = false
    @Flag(help: "Leave the barometer's columns out (with a barometer: each reading's time, pressure in kPa and temperature in a row at or after it).")
    var noBarometer = false

    @OptionGroup var source: SourceOptions

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
            opened.manager.usesChipFIFO = fifo
            let barometer = BarometerColumns.open(opened, rowInterval: 1 / rate, leaveOut: noBarometer, command: "stream")
            try StreamSession(manager: opened.manager, format: format, kind: kind, interval: 1 / rate, count: count, barometer: barometer)
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
    /// The barometer's columns at the end of each row; nil: none.
    var barometer: BarometerColumns? = nil

    func run(runner: UpdateRunner) throws {
        if kind == .deviceMotion, !manager.isDeviceMotionAvailable {
            throw CommandFailure(message: "\(manager.deviceName) has no gyroscope, so no device motion (Core Motion's isDeviceMotionAvailable is false on such a device too): "
                + "`motionctl stream` without --device-motion streams its accelerometer (and magnetometer)")
        }
        let output = OutputLines()
        let queue = DispatchQueue(label: "motionctl.stream")
        let chipAttitude = manager.isChipAttitudeAvailable
        let magnetometer = manager.isMagnetometerAvailable
        let columns = (kind == .raw
            ? Self.rawColumns(magnetometer: magnetometer)
            : MachineOutput.deviceMotionColumns + (magnetometer ? Self.backgroundCalibrationColumns : [])
                + (chipAttitude ? MachineOutput.chipAttitudeColumns : []))
            + (barometer == nil ? [] : BarometerColumns.columns)
        if format == .csv { output.write(columns.joined(separator: ",")) }
        let limit = count.map { $0 + (format == .csv ? 1 : 0) } ?? .max   // --count ≤ 10¹²: no overflow
        let emit: @Sendable (Double, [MachineOutput.Value]) -> Void = { [barometer] timestamp, values in
            guard output.count < limit else { return }
            let values = values + (barometer?.values(at: timestamp) ?? [])
            output.write(format == .csv ? MachineOutput.csvLine(values) : MachineOutput.jsonLine(columns, values))
        }
        barometer?.start(on: queue)
        let errors: @Sendable (MotionError) -> Void = { error in
            printError("motionctl: \(error)")
        }
        switch kind {
        case .raw:
            manager.sensorUpdateInterval = interval
            manager.startSensorUpdates(to: queue) { data, error in
                if let data { emit(data.timestamp, Self.row(data, magnetometer: magnetometer)) }
                if let error { errors(error) }
            }
        case .deviceMotion:
            manager.deviceMotionUpdateInterval = interval
            let frame: AttitudeReferenceFrame = manager.isMagnetometerAvailable ? .xMagneticNorthZVertical : .xArbitraryZVertical
            manager.startDeviceMotionUpdates(using: frame, to: queue) { motion, error in
                if let motion {
                    emit(motion.timestamp, MachineOutput.deviceMotionRow(motion) + (magnetometer ? Self.backgroundCalibrationRow(manager.backgroundCalibrationStatus) : [])
                        + (chipAttitude ? MachineOutput.chipAttitudeRow(motion) : []))
                }
                if let error { errors(error) }
            }
        }
        let interrupted = runner.run(isDone: { output.count >= limit || output.error != nil }, drain: { queue.sync {} })
        manager.stopSensorUpdates()
        manager.stopDeviceMotionUpdates()
        queue.sync {}
        barometer?.stop(queue: queue)
        if let error = output.error { throw error }
        // Every sample period, delivered or dropped and why (through the FIFO: the chip's).
        printError("motionctl: stream stopped: \(manager.counters)")
        manager.reportBackgroundSaveFailure()
        if interrupted { throw Interruption.exit("\(output.count - (format == .csv ? 1 : 0)) rows written") }
    }

    static func rawColumns(magnetometer: Bool) -> [String] {
        ["timestamp_s", "acc_x_g", "acc_y_g", "acc_z_g", "rot_x_rad_s", "rot_y_rad_s", "rot_z_rad_s"]
            + (magnetometer ? ["mag_x_uT", "mag_y_uT", "mag_z_uT"] : [])
    }

    /// One row (``MachineOutput``): the magnetometer's columns only when the board has one,
    /// missing (empty, null) in a sample taken while it was out.
    static func row(_ data: SensorData, magnetometer: Bool) -> [MachineOutput.Value] {
        var values: [MachineOutput.Value] = [.time(data.timestamp)] + numbers(data.acceleration) + numbers(data.rotationRate)
        if let field = data.magneticField {
            values += numbers(field)
        } else if magnetometer {
            values += [.missing, .missing, .missing]
        }
        return values
    }

    /// With a magnetometer: the background calibration's progress (its offset's σ in µT, the
    /// heading σ it gives in degrees, and its state: calibrated, learning, needsRotation,
    /// disturbed, relearning); missing before the first estimate.
    static let backgroundCalibrationColumns = ["mag_cal_sigma_uT", "mag_cal_heading_sigma_deg", "mag_cal_state"]

    static func backgroundCalibrationRow(_ status: HardIronEstimator.Status?) -> [MachineOutput.Value] {
        guard let status else { return [.missing, .missing, .missing] }
        return [.number(status.sigma), .number(status.headingSigma), .name(status.reason.rawValue)]
    }

    static func numbers(_ v: SIMD3<Double>) -> [MachineOutput.Value] { MachineOutput.numbers(v) }
}

extension SIMD3 where Scalar == Double {
    var array: [Double] { [x, y, z] }
}
