import Locking
import ArgumentParser
import Foundation
import I2C
import LinuxI2C
import Motion
import MotionSimulator
import Sensors

#if canImport(Glibc)
import Glibc
#endif

/// `motionctl record`: raw samples (chip counts and scaled values) to CSV, from a board or from
/// the simulated board in virtual time.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record raw sensor samples to CSV: chip counts and scaled values, in chip axes.",
        discussion: """
            Each row holds the time, the accelerometer, gyroscope and magnetometer output registers \
            as read (signed LSB counts, chip axes; the accelerometer counts +1 g on z lying face up) \
            and the same sample scaled by the configured sensitivity: specific force m/s² (chip \
            sign), angular rate rad/s, magnetic field µT, die temperature °C. Comment lines (#) \
            name the chips, rates, ranges and sensitivities. The file reads back as a simulator \
            recording (MotionSimulator `Recording(contentsOf:)`, extra columns ignored) to replay it.

            With --simulated (or --scenario), or when this machine is not a known board and no \
            --board or --bus is given, the simulated board plays a scenario in virtual time: the \
            whole duration is recorded at once. On a board, samples are read in real time at --rate.
            """)

    @Flag(help: "Record the simulated board (virtual time) instead of a real bus.")
    var simulated = false

    @Option(help: "Simulated scenario (implies --simulated): \(Scenario.all.map(\.name).joined(separator: ", ")).")
    var scenario: String?

    @Option(help: "Simulated IMU: \(SimulatedBoard.imuChoices.joined(separator: ", ")).")
    var imu: String = SimulatedBoard.IMU.lsm6dsox.rawValue

    @Option(help: "Simulated magnetometer: \(SimulatedBoard.magnetometerChoices.joined(separator: ", ")).")
    var magnetometer: String = "usual"

    @Option(help: "Seed of the simulated sensor noise.")
    var seed: UInt64 = 1

    @Option(help: "A built-in board id (`motionctl boards`) or the path of a board file.")
    var board: String?

    @Option(help: "The I2C bus, e.g. /dev/i2c-1 or 1 (default: the board's default bus).")
    var bus: String?

    @Option(help: "Samples per second (0 < HZ ≤ 1000).")
    var rate: Double = 100

    @Option(help: "Seconds to record.")
    var duration: Double = 10

    @Option(help: "The CSV file to write (default: standard output).")
    var output: String?

    var wantsSimulation: Bool { simulated || scenario != nil }

    func validate() throws {
        if wantsSimulation && (board != nil || bus != nil) {
            throw ValidationError("--simulated/--scenario and --board/--bus exclude each other: pick one")
        }
        guard rate.isFinite, rate > 0, rate <= 1000 else { throw ValidationError("--rate must be in (0, 1000] Hz, got \(rate)") }
        guard duration.isFinite, duration > 0 else { throw ValidationError("--duration must be a positive number of seconds") }
        guard (duration * rate).rounded(.down) >= 1 else {
            throw ValidationError("--duration \(duration) s at --rate \(rate) Hz is less than one sample")
        }
        if let scenario, Scenario.named(scenario) == nil {
            throw ValidationError("no scenario \"\(scenario)\"; choose one of: \(Scenario.all.map(\.name).joined(separator: ", "))")
        }
        if SimulatedBoard.IMU(rawValue: imu.lowercased()) == nil {
            throw ValidationError("no simulated IMU \"\(imu)\"; choose one of: \(SimulatedBoard.imuChoices.joined(separator: ", "))")
        }
        if SimulatedBoard.MagnetometerChoice(name: magnetometer) == nil {
            throw ValidationError("no simulated magnetometer \"\(magnetometer)\"; choose one of: \(SimulatedBoard.magnetometerChoices.joined(separator: ", "))")
        }
    }

    func run() throws {
        let count = Int((duration * rate).rounded(.down))
        do {
            let sink = try CSVSink(path: output)
            let source = try openSource()
            if !source.note.isEmpty { FileHandle.standardError.write(Data((source.note + "\n").utf8)) }
            try SampleRecorder(drivers: source.drivers, description: source.description).record(
                count: count, rate: rate, clock: source.clock, to: sink)
            try sink.close()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// Drivers, where time comes from, and comment lines saying what is recorded.
    private struct Source {
        var drivers: SensorDrivers
        var clock: RecordingClock
        var description: [String]
        /// Printed to standard error (e.g. why the simulated board is used).
        var note = ""
    }

    private func openSource() throws(RecordError) -> Source {
        var note = ""
        if !wantsSimulation && board == nil && bus == nil {
            guard BoardCatalog.builtIn.detectMachine() != nil else {
                note = "not a known board and no --board or --bus given: recording the simulated board"
                var source = try openSimulation()
                source.note = note
                return source
            }
        }
        if wantsSimulation { return try openSimulation() }
        return try openBoard()
    }

    private func openSimulation() throws(RecordError) -> Source {
        let simulation = Simulation(
            scenario: scenario ?? "six-faces", imu: SimulatedBoard.IMU(rawValue: imu.lowercased()) ?? .lsm6dsox,
            magnetometer: SimulatedBoard.MagnetometerChoice(name: magnetometer) ?? .usual, seed: seed)
        let time = VirtualTime()
        let board: SimulatedBoard
        do {
            board = try simulation.makeBoard(startTime: 0, now: { time.now }).board
        } catch {
            throw .open("the simulated board: \(error)")
        }
        let drivers = try SensorDrivers.open(
            bus: board.bus, imuAddresses: [board.imuAddress], magnetometerAddresses: board.magnetometerAddress.map { [$0] } ?? [],
            pause: .none)
        return Source(drivers: drivers, clock: .virtual(time), description: [
            "simulated board: scenario \(simulation.scenario), seed \(simulation.seed), datasheet sensor errors, virtual time from 0 s",
        ])
    }

    private func openBoard() throws(RecordError) -> Source {
        var chosen: Board?
        if let board {
            if let builtIn = BoardCatalog.builtIn.board(id: board) {
                chosen = builtIn
            } else if FileManager.default.fileExists(atPath: board) {
                do {
                    chosen = try BoardCatalog.loadBoard(at: board)
                } catch {
                    throw .open("board file \(board): \(error)")
                }
            } else {
                let known = BoardCatalog.builtIn.boards.map(\.id).joined(separator: ", ")
                throw .open("no board \"\(board)\": neither a built-in id (\(known)) nor a board file")
            }
        } else {
            chosen = BoardCatalog.builtIn.detectMachine()
        }
        let path = bus.map { $0.allSatisfy(\.isNumber) ? "/dev/i2c-\($0)" : $0 } ?? chosen?.defaultBus?.device
        guard let path else {
            throw .open("board \(chosen?.id ?? "?") names no default I2C bus: pass --bus")
        }
        let i2c: LinuxI2CBus
        do {
            i2c = try LinuxI2CBus(path: path)
        } catch {
            throw .open("\(path): \(error)")
        }
        // Without a board file: every address a supported chip can sit at.
        let imuAddresses = chosen?.imuAddresses ?? [0x6A, 0x6B, 0x68, 0x69].map { I2CAddress($0) }
        let magnetometerAddresses = chosen?.magnetometerAddresses ?? [0x1C, 0x1E, 0x0D, 0x0C].map { I2CAddress($0) }
        let drivers = try SensorDrivers.open(
            bus: i2c, imuAddresses: imuAddresses, magnetometerAddresses: magnetometerAddresses, pause: .system)
        return Source(drivers: drivers, clock: .monotonic, description: [
            "board \(chosen.map { "\($0.name) (\($0.id))" } ?? "unknown (addresses scanned)") on \(path), chip axes (no mount matrix), real time",
        ])
    }
}

/// Why `record` stopped.
enum RecordError: Error, CustomStringConvertible {
    case open(String)
    case sensor(SensorError)
    case create(path: String)
    case write(path: String, cause: any Error)

    var description: String {
        switch self {
        case .open(let text): "cannot open the sensors: \(text)"
        case .sensor(let error): "reading the sensors failed: \(error)"
        case .create(let path): "cannot create \(path) (check the directory exists and is writable)"
        case let .write(path, cause): "cannot write \(path): \(cause) (check the directory exists and is writable)"
        }
    }
}

/// The IMU and (if any) magnetometer drivers, found and configured at their defaults.
struct SensorDrivers {
    var imu: any IMUDriver
    var magnetometer: (any MagnetometerDriver)?

    /// Identifies the first supported IMU among `imuAddresses` and configures it, then (an
    /// MPU-9250's AK8963 answers only once the IMU is configured) the first magnetometer.
    static func open(
        bus: any I2CBus, imuAddresses: [I2CAddress], magnetometerAddresses: [I2CAddress], pause: Pause
    ) throws(RecordError) -> SensorDrivers {
        func sensor<T>(_ body: () throws(SensorError) -> T) throws(RecordError) -> T {
            do {
                return try body()
            } catch {
                throw .sensor(error)
            }
        }
        func identify(_ address: I2CAddress) throws(RecordError) -> ChipInfo? {
            try sensor { () throws(SensorError) in try ChipCatalog.identify(bus: bus, address: address) }
        }
        var imu: (any IMUDriver)?
        for address in imuAddresses where imu == nil {
            if let chip = try identify(address), chip.isIMU { imu = ChipCatalog.makeIMU(for: chip, bus: bus, pause: pause) }
        }
        guard let imu else {
            let tried = imuAddresses.map(\.description).joined(separator: ", ")
            throw .open("no supported IMU at \(tried) on \(bus.name); check the wiring, then run `motionctl probe`")
        }
        try sensor { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
        var magnetometer: (any MagnetometerDriver)?
        for address in magnetometerAddresses where magnetometer == nil {
            if let chip = try identify(address), !chip.isIMU {
                magnetometer = ChipCatalog.makeMagnetometer(for: chip, bus: bus, pause: pause)
            }
        }
        if let magnetometer {
            try sensor { () throws(SensorError) in try magnetometer.configure(magnetometer.defaultConfiguration) }
        }
        return SensorDrivers(imu: imu, magnetometer: magnetometer)
    }
}

/// Simulation time that `record` moves sample by sample.
final class VirtualTime: Sendable {
    private let value = Locked(0.0)
    var now: Double { value.withLock { $0 } }
    func set(_ time: Double) { value.withLock { $0 = time } }
}

/// When samples are taken.
enum RecordingClock {
    /// Simulation: time jumps to each sample time; the recording takes no real time.
    case virtual(VirtualTime)
    /// A board: sleeps until each sample time on `CLOCK_MONOTONIC` (seconds since boot).
    case monotonic

    /// Waits for (or moves to) sample `index` of a recording at `rate` started at `start`, and
    /// returns the time the sample is read at.
    func reach(_ index: Int, rate: Double, start: Double) -> Double {
        let due = start + Double(index) / rate
        switch self {
        case .virtual(let time):
            time.set(due)
            return due
        case .monotonic:
            var deadline = timespec(tv_sec: Int(due), tv_nsec: Int((due - due.rounded(.down)) * 1e9))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            return Self.monotonicNow()
        }
    }

    var now: Double {
        switch self {
        case .virtual(let time): time.now
        case .monotonic: Self.monotonicNow()
        }
    }

    private static func monotonicNow() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}

/// Reads the drivers sample by sample and writes CSV rows.
struct SampleRecorder {
    let drivers: SensorDrivers
    /// Comment lines about the source (board or simulation).
    let description: [String]

    static let imuRawColumns = ["accelerometer_x_LSB", "accelerometer_y_LSB", "accelerometer_z_LSB",
                                "gyroscope_x_LSB", "gyroscope_y_LSB", "gyroscope_z_LSB"]
    static let magnetometerRawColumns = ["magnetometer_x_LSB", "magnetometer_y_LSB", "magnetometer_z_LSB"]

    /// The header line: time, raw counts, then the ``Recording`` columns (m/s², rad/s, µT, °C);
    /// no magnetometer columns without a magnetometer.
    var columns: [String] {
        let hasMagnetometer = drivers.magnetometer != nil
        return [Recording.timeColumn] + Self.imuRawColumns + (hasMagnetometer ? Self.magnetometerRawColumns : [])
            + Recording.specificForceColumns + Recording.angularRateColumns
            + (hasMagnetometer ? Recording.magneticFieldColumns : []) + [Recording.temperatureColumn]
    }

    /// Writes the comments and header, then `count` samples at `rate`, the first one period after
    /// the start.
    func record(count: Int, rate: Double, clock: RecordingClock, to sink: CSVSink) throws(RecordError) {
        let start = clock.now
        var lines: [String] = []
        for index in 1...max(1, count) {
            let time = clock.reach(index, rate: rate, start: start)
            let sample: IMUSample
            let field: MagneticSample?
            do throws(SensorError) {
                sample = try drivers.imu.readSample()
                field = try drivers.magnetometer?.readSample()
            } catch {
                throw .sensor(error)
            }
            if index == 1 { try sink.write(header(first: sample, field: field, rate: rate, count: count)) }
            lines.append(row(time: time, sample, field))
            if lines.count == 1000 || index == count {
                try sink.write(lines.joined(separator: "\n") + "\n")
                lines.removeAll(keepingCapacity: true)
            }
        }
    }

    private func header(first sample: IMUSample, field: MagneticSample?, rate: Double, count: Int) -> String {
        let imu = drivers.imu
        let configuration = imu.configuration
        var comments = ["motionctl record: \(count) samples at \(rate) Hz"] + description
        if let raw = sample.raw {
            comments.append(
                "\(imu.chip.name) at \(imu.chip.address): ODR \(configuration.outputDataRate) Hz, "
                    + "accelerometer ±\(configuration.accelerometerRange) g = \(raw.accelerometerLSBPerG) LSB/g, "
                    + "gyroscope ±\(configuration.gyroscopeRange) °/s = \(raw.gyroscopeLSBPerDPS) LSB/(°/s)")
        }
        if let magnetometer = drivers.magnetometer, let raw = field?.raw {
            let sensitivity = raw.lsbPerMicrotesla
            comments.append(
                "\(magnetometer.chip.name) at \(magnetometer.chip.address): ODR \(magnetometer.configuration.outputDataRate) Hz, "
                    + "±\(magnetometer.configuration.range) µT = \(sensitivity.x), \(sensitivity.y), \(sensitivity.z) LSB/µT (x, y, z)")
        }
        comments += [
            "time_s: seconds (since boot on a board; simulation time in a simulation)",
            "*_LSB: output registers as read, signed counts, chip axes; accelerometer +1 g on z lying face up",
            "specific_force m/s² (= accelerometer counts / LSB per g × 9.80665), angular_rate rad/s, magnetic_field µT, temperature °C",
        ]
        return comments.map { "# " + $0 }.joined(separator: "\n") + "\n" + columns.joined(separator: ",") + "\n"
    }

    private func row(time: Double, _ sample: IMUSample, _ field: MagneticSample?) -> String {
        var values: [String] = ["\(time)"]
        let raw = sample.raw
        values += [raw?.accelerometer, raw?.gyroscope].flatMap { counts in
            (0..<3).map { axis in counts.map { "\($0[axis])" } ?? "" }
        }
        if drivers.magnetometer != nil {
            values += (0..<3).map { axis in field?.raw.map { "\($0.counts[axis])" } ?? "" }
        }
        let specificForce = -sample.acceleration * PhysicalState.standardGravity
        values += (0..<3).map { "\(specificForce[$0])" } + (0..<3).map { "\(sample.rotationRate[$0])" }
        if let field {
            values += (0..<3).map { "\(field.field[$0])" }
        }
        values.append("\(sample.temperature ?? 25)")
        return values.joined(separator: ",")
    }
}

/// Where the CSV goes: a file (created or truncated) or standard output.
final class CSVSink {
    private let handle: FileHandle
    private let path: String

    init(path: String?) throws(RecordError) {
        guard let path else {
            handle = FileHandle.standardOutput
            self.path = "standard output"
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw .create(path: path)
        }
        self.handle = handle
        self.path = path
    }

    func write(_ text: String) throws(RecordError) {
        do {
            try handle.write(contentsOf: Data(text.utf8))
        } catch {
            throw .write(path: path, cause: error)
        }
    }

    func close() throws(RecordError) {
        guard handle !== FileHandle.standardOutput else { return }
        do {
            try handle.close()
        } catch {
            throw .write(path: path, cause: error)
        }
    }
}
