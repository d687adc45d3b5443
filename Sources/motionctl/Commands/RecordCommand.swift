import FileAccess
import ArgumentParser
import CommandSupport
import Dispatch
import Foundation
import Locking
import Motion
import MotionFormats
import MotionSimulation
import MotionTools
import MotionSimulator
import Sensors

#if canImport(Glibc)
import Glibc
#endif

/// `motionctl record`: raw samples (chip counts and scaled values) to CSV, from a board or from
/// the simulated board, through a `MotionManager` like every other command.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record raw sensor samples to CSV: chip counts and scaled values, in chip axes.",
        discussion: """
            Each row holds the time, the accelerometer, gyroscope and magnetometer output registers \
            as read (signed LSB counts, chip axes; the accelerometer counts +1 g on z lying face up) \
            and the same sample scaled by the configured sensitivity: specific force m/s² (chip \
            sign), angular rate rad/s, magnetic field µT, die temperature °C; with a barometer, each of its \
            readings (its own time, pressure kPa, temperature °C) in a row at or after it. Comment lines (#) \
            name the chips, rates, ranges and sensitivities. The file reads back as a simulator \
            recording (MotionSimulator `Recording(contentsOf:)`, the barometer's readings as its pressures, extra columns ignored) to replay it.

            With --simulated (or --scenario), or when this machine is not a known board and no \
            --board is given, the simulated board plays a scenario in virtual time (the whole \
            duration is recorded at once) unless --real-time is given. On a board, samples are read \
            in real time at --rate; above 100 Hz through the IMU's FIFO, at most at its output data rate.
            """)

    @Option(parsing: .unconditional, help: "Samples per second (one a day to 1000; at most the IMU's output data rate).", transform: OptionRange.decimal)
    var rate: Double = 100

    @Option(parsing: .unconditional, help: "Seconds to record.", transform: OptionRange.decimal)
    var duration: Double = 10

    @Option(help: "The CSV file to write (default: standard output).")
    var output: String?

    @Flag(help: "Leave the barometer's columns out (with a barometer: each reading's time, pressure in kPa and temperature in a row at or after it).")
    var noBarometer = false

    @OptionGroup var source: SourceOptions

    func validate() throws {
        try OptionRange.check(rate, "--rate", in: OptionRange.slowestRate...1000, unit: "Hz")
        try OptionRange.check(duration, "--duration", in: OptionRange.seconds, unit: "seconds")
        if let output {
            do { try OutputFile.preflight(output, what: "the CSV file") } catch { throw ValidationError("--output \(error)") }
        }
        // Both in range: at most 3·10¹⁰ samples, so the count below converts to Int safely.
        guard (duration * rate).rounded(.down) >= 1 else {
            throw ValidationError("--duration \(duration) s at --rate \(rate) Hz is less than one sample")
        }
    }

    func run() throws {
        if source.listScenariosIfAsked() { return }
        try CommandFailure.reporting(record)
    }

    private func record() throws {
        // Without stored calibrations: the scaled columns are the chips' own readings.
        let opened = try source.open(calibrationStore: nil)
        let manager = opened.manager
        guard let target = manager.calibrationTarget, let chips = manager.chipSettings else {
            throw CommandFailure(message: "\(manager.deviceName) is not made of chips: no registers to record")
        }
        let fastest = 1 / manager.shortestUpdateInterval
        var rate = rate
        if rate > fastest + 1e-9 {
            printError("\(chips.imu.name) delivers at most \(fastest) Hz: recording at \(fastest) Hz")
            rate = fastest
        }
        let count = max(1, Int((duration * rate).rounded(.down)))
        let sink = try CSVSink(path: output)
        let barometer = BarometerColumns.open(opened, rowInterval: 1 / rate, leaveOut: noBarometer, command: "record")
        let recorder = SampleRecorder(
            target: target, chips: chips, description: description(of: opened), count: count, rate: rate,
            timeOrigin: opened.virtualClock?.now ?? 0, sink: sink, barometer: barometer)
        let queue = DispatchQueue(label: "motionctl.record")
        barometer?.start(on: queue)
        manager.sensorUpdateInterval = 1 / rate
        manager.usesChipFIFO = rate > 100
        manager.startSensorUpdates(to: queue) { data, error in
            if let data { recorder.add(data) }
            if let error { printError("motionctl: \(error)") }
        }
        printError("recording \(count) samples at \(OptionRange.describe(rate)) Hz from \(manager.deviceName) to \(output ?? "standard output") (Ctrl-C stops)")
        // A second more than asked for: a sensor that keeps failing does not hold the recording forever.
        let interrupted = opened.runner(duration: duration + 1).run(isDone: { recorder.isDone }, drain: { queue.sync {} })
        manager.stopSensorUpdates()
        queue.sync {}
        barometer?.stop(queue: queue)
        try recorder.finish()
        // A file is never replaced by less than a recording: with no sample, whatever was there stays.
        guard recorder.written > 0 else {
            sink.discard()
            let outcome = "no sample recorded" + (output.map { ", \($0) left as it was" } ?? "")
            if interrupted { throw Interruption.exit(outcome) }
            throw CommandFailure(message: outcome)
        }
        try sink.close()
        let written = "\(recorder.written) of \(count) samples written to \(output ?? "standard output")"
        if interrupted { throw Interruption.exit(written) }
        if !recorder.isDone {
            printError("stopped: \(written)")
        }
    }

    /// Comment lines about the source (board or simulation).
    private func description(of opened: OpenedSource) -> [String] {
        switch opened.source {
        case .simulated(let simulation):
            let time = opened.virtualClock == nil ? "real time" : "virtual time from 0 s"
            return ["simulated board: scenario \(simulation.scenario), seed \(simulation.seed), datasheet sensor errors, \(time)"]
        case .board(let board, _), .device(let board, _):
            return ["board \(board.name) (\(board.id)): \(opened.manager.deviceName), chip axes (the board's mount matrix undone), real time"]
        case .automatic:
            return ["\(opened.manager.deviceName), chip axes, real time"]
        case .iio:
            return ["\(opened.manager.deviceName) (Linux IIO driver), device axes (the mount matrix applied), real time"]
        }
    }
}

/// Turns sensor updates into CSV rows, `count` of them, on the handler's queue.
final class SampleRecorder: Sendable {
    let target: CalibrationTarget
    let chips: ChipSettings
    /// Comment lines about the source (board or simulation).
    let description: [String]
    let count: Int
    let rate: Double
    /// Subtracted from each timestamp (the start of virtual time), 0 on a real board.
    let timeOrigin: Double
    let sink: CSVSink
    /// The barometer's columns at the end of each row; nil: none.
    let barometer: BarometerColumns?
    private let state = Locked<(lines: [String], written: Int, failure: CommandFailure?)>(([], 0, nil))

    init(target: CalibrationTarget, chips: ChipSettings, description: [String], count: Int, rate: Double, timeOrigin: Double, sink: CSVSink, barometer: BarometerColumns? = nil) {
        self.target = target
        self.chips = chips
        self.description = description
        self.count = count
        self.rate = rate
        self.timeOrigin = timeOrigin
        self.sink = sink
        self.barometer = barometer
    }

    static let imuRawColumns = ["accelerometer_x_LSB", "accelerometer_y_LSB", "accelerometer_z_LSB",
                                "gyroscope_x_LSB", "gyroscope_y_LSB", "gyroscope_z_LSB"]
    static let magnetometerRawColumns = ["magnetometer_x_LSB", "magnetometer_y_LSB", "magnetometer_z_LSB"]

    /// The header line: time, raw counts, then the ``Recording`` columns (m/s², rad/s, µT, °C);
    /// no magnetometer columns without a magnetometer.
    var columns: [String] {
        let hasMagnetometer = chips.magnetometer != nil
        return [Recording.timeColumn] + Self.imuRawColumns + (hasMagnetometer ? Self.magnetometerRawColumns : [])
            + Recording.specificForceColumns + Recording.angularRateColumns
            + (hasMagnetometer ? Recording.magneticFieldColumns : []) + [Recording.temperatureColumn]
            + (barometer == nil ? [] : Recording.barometerColumns)
    }

    var written: Int { state.withLock { $0.written } }
    var isDone: Bool { state.withLock { $0.written >= count || $0.failure != nil } }

    /// Adds one sample (the first one writes the comments and header); rows go out 1000 at a time.
    func add(_ data: SensorData) {
        state.withLock { state in
            guard state.written < count, state.failure == nil else { return }
            if state.written == 0 { state.lines.append(header(first: data)) }
            state.lines.append(row(data))
            state.written += 1
            if state.lines.count >= 1000 || state.written == count { flush(&state) }
        }
    }

    /// Writes what is left; throws the first write failure.
    func finish() throws {
        try state.withLock { state in
            flush(&state)
            if let failure = state.failure { throw failure }
        }
    }

    private func flush(_ state: inout (lines: [String], written: Int, failure: CommandFailure?)) {
        guard !state.lines.isEmpty, state.failure == nil else { return }
        do {
            try sink.write(state.lines.joined(separator: "\n") + "\n")
        } catch {
            state.failure = error
        }
        state.lines.removeAll(keepingCapacity: true)
    }

    private func header(first data: SensorData) -> String {
        let configuration = chips.imuConfiguration
        var comments = ["motionctl record: \(count) samples at \(rate) Hz"] + description
        if let raw = data.imuRegisters {
            comments.append(
                "\(chips.imu.name) at \(chips.imu.address): ODR \(configuration.outputDataRate) Hz, "
                    + "accelerometer ±\(configuration.accelerometerRange) g = \(raw.accelerometerLSBPerG) LSB/g, "
                    + "gyroscope ±\(configuration.gyroscopeRange) °/s = \(raw.gyroscopeLSBPerDPS) LSB/(°/s)")
        }
        if let magnetometer = chips.magnetometer, let settings = chips.magnetometerConfiguration, let raw = data.magnetometerRegisters {
            let sensitivity = raw.lsbPerMicrotesla
            comments.append(
                "\(magnetometer.name) at \(magnetometer.address): ODR \(settings.outputDataRate) Hz, "
                    + "±\(settings.range) µT = \(sensitivity.x), \(sensitivity.y), \(sensitivity.z) LSB/µT (x, y, z)")
        }
        comments += [
            "time_s: seconds (since boot on a board; simulation time in a simulation)",
            "*_LSB: output registers as read, signed counts, chip axes; accelerometer +1 g on z lying face up",
            "specific_force m/s² (= accelerometer counts / LSB per g × 9.80665), angular_rate rad/s, magnetic_field µT, temperature °C",
        ]
        if let barometer {
            comments.append("\(barometer.altimeter.barometerName ?? "barometer") at its own rate: each reading in a row at or after it, "
                + "barometer_time_s when it was taken, pressure kPa, barometer_temperature °C; empty on rows without a new one")
        }
        return comments.map { "# " + MachineOutput.ascii($0) }.joined(separator: "\n") + "\n" + columns.joined(separator: ",")
    }

    /// One row in the IMU's (and magnetometer's) chip axes: the manager's device-axes values
    /// turned back (the manager reads without stored calibrations, so they are the chips' own).
    private func row(_ data: SensorData) -> String {
        // Times to the nanosecond, the resolution of the monotonic clock; values as MachineOutput says.
        var values: [String] = [MachineOutput.Value.time(data.timestamp - timeOrigin).csv]
        let raw = data.imuRegisters
        values += [raw?.accelerometer, raw?.gyroscope].flatMap { counts in
            (0..<3).map { axis in counts.map { "\($0[axis])" } ?? "" }
        }
        if chips.magnetometer != nil {
            values += (0..<3).map { axis in data.magnetometerRegisters.map { "\($0.counts[axis])" } ?? "" }
        }
        let specificForce = -target.imuChipAxes(data.acceleration) * PhysicalState.standardGravity
        let rotationRate = target.imuChipAxes(data.rotationRate)
        values += (0..<3).map { MachineOutput.Value.number(specificForce[$0]).csv } + (0..<3).map { MachineOutput.Value.number(rotationRate[$0]).csv }
        if chips.magnetometer != nil {
            let field = data.magneticField.map(target.magnetometerChipAxes)
            values += (0..<3).map { axis in field.map { MachineOutput.Value.number($0[axis]).csv } ?? "" }
        }
        values.append(MachineOutput.Value.number(data.temperature ?? 25).csv)
        if let barometer {
            let reading = barometer.take(at: data.timestamp)
            let columns: [MachineOutput.Value] = [
                reading.map { MachineOutput.Value.time($0.timestamp - timeOrigin) } ?? .missing,
                reading.map { MachineOutput.Value.number($0.pressure / 1000) } ?? .missing,
                reading.map { MachineOutput.Value.number($0.temperature) } ?? .missing,
            ]
            values += columns.map(\.csv)
        }
        return values.joined(separator: ",")
    }
}

/// Where the CSV goes: standard output, a device or pipe as it is, or a regular file written
/// whole: the rows go to a temporary file beside it, renamed over the path when the recording is
/// closed, removed on a write error (no half-written file is left under the name asked for).
final class CSVSink: Sendable {
    private let output: CheckedOutput
    /// Set for a path (``OutputFile``: a regular file is replaced atomically at the end, a device
    /// or FIFO written into); nil for standard output.
    private let file: OutputFile?

    init(path: String?) throws(CommandFailure) {
        guard let path else {
            output = .standardOutput
            file = nil
            return
        }
        do {
            let file = try OutputFile(path: path, what: "the CSV file")
            output = CheckedOutput(descriptor: file.descriptor, name: path)
            self.file = file
        } catch {
            throw CommandFailure(message: "--output \(error)")
        }
    }

    func write(_ text: String) throws(CommandFailure) {
        do {
            try output.write(text)
        } catch {
            file?.discard()
            throw error
        }
    }

    /// Leaves the path as it was (a regular file's temporary copy is removed).
    func discard() { file?.discard() }

    /// Closes the file and, for a regular file, puts it under its name.
    func close() throws(CommandFailure) {
        do {
            try file?.commit()
        } catch {
            throw CommandFailure(message: "cannot write \(error)")
        }
    }
}
