import Motion
import MotionSimulation
import Locking
import Dispatch
import Foundation
import Fusion
import I2C
import LinuxI2C
import MotionSimulator
import Sensors
import Timing

/// One line of a hardware check report: what was measured against which limit.
package struct HardwareCheckResult: Sendable, Equatable, CustomStringConvertible {
    package enum Status: String, Sendable, Equatable {
        case pass = "PASS"
        case fail = "FAIL"
        /// The check does not apply (e.g. a magnetometer without a self-test).
        case skip = "SKIP"
    }

    /// Which check: `identity`, `IMU self-test`, `rate`, `gravity`, …
    package var name: String
    package var status: Status
    /// What was measured, with its unit.
    package var measured: String
    /// What the measurement had to meet, with its source.
    package var limit: String

    package init(_ name: String, _ status: Status, measured: String, limit: String) {
        self.name = name
        self.status = status
        self.measured = measured
        self.limit = limit
    }

    /// `PASS  gravity: 1.002 g (limit 1 g ± 3 %)`
    package var description: String {
        "\(status.rawValue)  \(name): \(measured) (limit: \(limit))"
    }
}

/// What the checks run on: a board and its bus, either real (real time) or the simulated board
/// (virtual time, so the same checks take milliseconds and give the same numbers every run).
package struct HardwareCheckTarget: Sendable {
    /// How the target is named in reports: `simulated board (LSM6DSOX + LIS3MDL)`, `raspberry-pi-4b on /dev/i2c-1`.
    package let description: String
    package let board: Board
    /// The bus the chip-level checks (identity, self-test, FIFO) use.
    package let bus: any I2CBus
    /// The manager the stream-level checks (rate, gravity, gyro, orientation) use.
    package let manager: MotionManager
    /// True on the simulated board: time is virtual and counts are exact.
    package let isSimulated: Bool
    /// How drivers wait (reset, self-test settling): nothing on the simulator.
    let pause: Pause
    /// Lets `seconds` of (virtual or real) time pass.
    let wait: @Sendable (_ seconds: Double) -> Void

    /// The simulated board in virtual time, lying still face up (scenario `rest`) with the
    /// datasheet noise and bias of the chosen chips (fixed seed).
    package static func simulated(imu: SimulatedBoard.IMU = .lsm6dsox, seed: UInt64 = 1) throws(MotionError) -> HardwareCheckTarget {
        try simulated(Simulation(scenario: "rest", imu: imu, seed: seed))
    }

    /// `simulation` in virtual time, lying still face up (its scenario is replaced by `rest`);
    /// laid out like a board file when it has a ``Simulation/layout``.
    package static func simulated(_ simulation: Simulation) throws(MotionError) -> HardwareCheckTarget {
        let clock = VirtualClock()
        var simulation = simulation
        simulation.scenario = "rest"
        let manager = try MotionManager(source: .simulated(simulation), clock: clock, calibrationStore: nil)
        guard let hardware = manager.simulatedHardware,
              let board = simulation.layout ?? BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID) else {
            throw .sensor("the simulated board did not start (built-in board files: \(BoardCatalog.builtInProblems))")
        }
        let laidOut = simulation.layout.map { "laid out like \($0.id), " } ?? ""
        return HardwareCheckTarget(
            description: "simulated board (\(laidOut)\(simulation.imu.rawValue), virtual time)", board: board, bus: hardware.board.bus,
            manager: manager, isSimulated: true, pause: .none, wait: { clock.advance(by: $0) })
    }

    /// A real board on `busPath` (the board's default bus when nil), in real time. Stored
    /// calibrations are not applied: the checks measure the chips themselves.
    package static func board(_ board: Board, busPath: String? = nil) throws(MotionError) -> HardwareCheckTarget {
        guard let path = busPath ?? board.defaultBus?.device else {
            throw .deviceNotFound("board \(board.id) names no default I2C bus; pass one (--bus /dev/i2c-N)")
        }
        let bus: LinuxI2CBus
        do throws(I2CError) {
            bus = try LinuxI2CBus(path: path)
        } catch {
            throw .bus(error)
        }
        let manager = try MotionManager(source: .board(board, bus: path), clock: SystemClock(), calibrationStore: nil)
        return HardwareCheckTarget(
            description: "\(board.id) on \(path)", board: board, bus: bus, manager: manager, isSimulated: false,
            pause: .system, wait: { Thread.sleep(forTimeInterval: $0) })
    }

    /// Resolves a board name or board file and a bus the way `motionctl selftest` and the
    /// hardware tests take them.
    ///
    /// - Parameters:
    ///   - board: nil or `simulated` for the simulated board; else a built-in board id or the
    ///     path of a board file.
    ///   - bus: a device node (`/dev/i2c-1`) or its number; nil: the board's default bus.
    ///   - fileExists: whether a device node exists (injected for tests).
    /// - Returns: the target, or why the checks cannot run here (a missing bus, an unknown board),
    ///   worded as a skip reason.
    package static func resolve(
        board: String?, bus: String?, fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> Result<HardwareCheckTarget, HardwareCheckUnavailable> {
        guard let board, !board.isEmpty, board != BoardCatalog.simulatedID else {
            return Result { () throws(MotionError) in try simulated() }.mapError { .failedToStart("\($0)") }
        }
        let resolvedBoard: Board
        do {
            resolvedBoard = try BoardCatalog.resolve(board)
        } catch {
            return .failure(.unknownBoard("\(error)"))
        }
        let path = bus.map(BoardCatalog.busDevice) ?? resolvedBoard.defaultBus?.device
        guard let path else {
            return .failure(.missingBus("board \(resolvedBoard.id) names no default I2C bus; name one"))
        }
        guard fileExists(path) else {
            return .failure(.missingBus("\(path) does not exist on this machine. \(LinuxI2CBus.enableI2CHint)"))
        }
        return Result { () throws(MotionError) in try Self.board(resolvedBoard, busPath: path) }.mapError { .failedToStart("\($0)") }
    }
}

/// Why the hardware checks cannot run on the target that was named.
package enum HardwareCheckUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bus device node is not there (no I2C enabled, wrong number).
    case missingBus(String)
    /// The board name is neither built in nor a readable board file.
    case unknownBoard(String)
    /// The bus opened but the sensors could not be started.
    case failedToStart(String)

    package var description: String {
        switch self {
        case .missingBus(let detail): "no I2C bus: \(detail)"
        case .unknownBoard(let detail): "unknown board: \(detail)"
        case .failedToStart(let detail): "the sensors did not start: \(detail)"
        }
    }
}

/// How far an uncalibrated chip lying face up may read from 1 g, from its datasheet: the z axis
/// carries gravity, so its zero-g offset tolerance plus the sensitivity tolerance (the x and y
/// offsets add only in quadrature). The checks measure the chips themselves, without stored
/// calibrations; ``HardwareChecks/gravityTolerance`` (3 %) stands for chips whose datasheets allow
/// less or give no figure.
package struct GravityRestLimits: Sendable, Equatable {
    /// Allowed deviation of the gravity magnitude from 1 g, as a fraction.
    package var tolerance: Double
    /// Where the numbers come from.
    package var source: String

    /// The limits of the chip named `chip` (a ``Sensors/ChipInfo`` name): the datasheet's where it
    /// allows more than 3 % (its descriptor's ``Sensors/ChipDescriptor/gravityRestTolerance``), else 3 %.
    package static func forChip(_ chip: String) -> GravityRestLimits {
        let datasheet = ChipRegistry.descriptor(named: chip)?.gravityRestTolerance
        return GravityRestLimits(tolerance: datasheet?.tolerance ?? HardwareChecks.gravityTolerance, source: datasheet?.source ?? "")
    }

    /// `1 g ± 3 %`, or with the datasheet: `1 g ± 11 % (PS-MPU-6000A §6.2: …; uncalibrated)`.
    var description: String {
        let percent = "1 g ± \(Int((tolerance * 100).rounded())) %"
        return source.isEmpty ? percent : "\(percent) (\(source); uncalibrated)"
    }
}

/// The hardware-in-the-loop checks: identity, self-test, FIFO, 100 Hz delivery, gravity, gyro
/// bias and noise at rest, orientation lying flat. Shared by `Tests/HardwareTests` and
/// `motionctl selftest`. Keep the board still and face up while they run.
package enum HardwareChecks {
    /// Length of the stream the rate, gravity, gyro and orientation checks measure, seconds.
    package static let streamDuration = 10.0
    /// The delivery rate checked, Hz.
    package static let rate = 100.0
    /// Allowed deviation of the delivered count from rate × duration (1 %).
    package static let rateTolerance = 0.01
    /// Allowed deviation of the gravity magnitude from 1 g (3 %) where the chip's datasheet
    /// allows no more (``GravityRestLimits``).
    package static let gravityTolerance = 0.03
    /// How long the FIFO fills before it is read, seconds.
    package static let fifoFillTime = 0.1

    /// Measurements of the stream checks, kept for tests that assert more than pass/fail.
    package struct StreamMeasurements: Sendable, Equatable {
        /// Accelerometer samples delivered in ``streamDuration``.
        package var sampleCount: Int
        /// Magnitude of the mean acceleration, g.
        package var gravityMagnitude: Double
        /// Mean rotation rate per axis, °/s.
        package var gyroBias: SIMD3<Double>
        /// Standard deviation of the rotation rate per axis, °/s.
        package var gyroNoise: SIMD3<Double>
        package var orientation: DeviceOrientation
    }

    /// Everything the checks found, in order.
    package struct Report: Sendable {
        package var target: String
        package var results: [HardwareCheckResult]
        /// The FIFO frame indices read (empty when the FIFO check did not get that far).
        package var fifoIndices: [Int]
        /// nil when the stream did not run.
        package var stream: StreamMeasurements?
        package var passed: Bool { results.allSatisfy { $0.status != .fail } }
    }

    /// Runs every check on `target`, reporting each result to `progress` as it is known.
    package static func run(on target: HardwareCheckTarget, progress: (HardwareCheckResult) -> Void = { _ in }) -> Report {
        var report = Report(target: target.description, results: [], fifoIndices: [], stream: nil)
        func record(_ result: HardwareCheckResult) {
            report.results.append(result)
            progress(result)
        }
        let chips = identify(target)
        record(chips.result)
        guard let imuChip = chips.imu, let imu = ChipCatalog.makeIMU(for: imuChip, bus: target.bus, pause: target.pause) else {
            return report
        }
        record(imuSelfTest(imu))
        // A magnetometer inside the IMU's chip comes from its driver, any other from the bus.
        if let magnetometer = imu.companionMagnetometer ?? chips.magnetometer.flatMap({
            ChipCatalog.makeMagnetometer(for: $0, bus: target.bus, pause: target.pause)
        }) {
            record(magnetometerSelfTest(magnetometer))
        }
        let fifo = fifoCheck(imu, target: target)
        report.fifoIndices = fifo.indices
        record(fifo.result)

        let stream = measureStream(target)
        switch stream {
        case .failure(let error):
            record(HardwareCheckResult("100 Hz delivery", .fail, measured: "\(error)", limit: "no errors while streaming"))
        case .success(let measured):
            report.stream = measured
            for result in streamResults(measured, chip: imuChip.name, bandwidth: imu.defaultConfiguration.outputDataRate / 2) {
                record(result)
            }
        }
        return report
    }

    // MARK: Chip-level checks

    private static func identify(_ target: HardwareCheckTarget) -> (result: HardwareCheckResult, imu: ChipInfo?, magnetometer: ChipInfo?) {
        let imuAddresses = target.board.imuAddresses.map(\.description).joined(separator: ", ")
        let limit = "a supported IMU at \(imuAddresses)"
        do throws(SensorError) {
            var imu: ChipInfo?
            for address in target.board.imuAddresses where imu == nil {
                if let chip = try ChipCatalog.identify(bus: target.bus, address: address), chip.isIMU { imu = chip }
            }
            var magnetometer: ChipInfo?
            for address in target.board.magnetometerAddresses where magnetometer == nil {
                if let chip = try ChipCatalog.identify(bus: target.bus, address: address, insidePackageOf: imu?.name), !chip.isIMU {
                    magnetometer = chip
                }
            }
            guard let imu else {
                return (HardwareCheckResult("identity", .fail, measured: "no supported IMU answers", limit: limit), nil, nil)
            }
            var named = magnetometer
            if let packaged = imu.descriptor?.packagedMagnetometer, !packaged.behindBypass, magnetometer?.name == packaged.chip {
                // A die that answers as another chip (the LSM9DS1's, as a LIS3MDL): named for the chip it is part of, as `probe` does.
                named?.name = "\(imu.name) magnetometer (\(packaged.chip) registers)"
            }
            let found = [imu, named].compactMap { $0 }.map(\.description).joined(separator: "; ")
            return (HardwareCheckResult("identity", .pass, measured: found, limit: limit), imu, magnetometer)
        } catch {
            return (HardwareCheckResult("identity", .fail, measured: "\(error)", limit: limit), nil, nil)
        }
    }

    private static func imuSelfTest(_ imu: any IMUDriver) -> HardwareCheckResult {
        do throws(SensorError) {
            try imu.configure(imu.defaultConfiguration)
            return selfTestResult("IMU self-test", try imu.selfTest())
        } catch {
            // A chip without one (the BNO08x: SH-2 has no self-test command) is no failure.
            if case .notSupported = error {
                return HardwareCheckResult("IMU self-test", .skip, measured: "\(error)", limit: "none: the chip has no self-test")
            }
            return HardwareCheckResult("IMU self-test", .fail, measured: "\(error)", limit: "datasheet self-test limits")
        }
    }

    private static func magnetometerSelfTest(_ magnetometer: any MagnetometerDriver) -> HardwareCheckResult {
        let name = "magnetometer self-test"
        do throws(SensorError) {
            try magnetometer.configure(magnetometer.defaultConfiguration)
            return selfTestResult(name, try magnetometer.selfTest())
        } catch {
            if case .notSupported = error {
                return HardwareCheckResult(name, .skip, measured: "\(error)", limit: "none: the chip has no self-test")
            }
            return HardwareCheckResult(name, .fail, measured: "\(error)", limit: "datasheet self-test limits")
        }
    }

    private static func selfTestResult(_ name: String, _ report: SelfTestReport) -> HardwareCheckResult {
        let failing = report.axes.filter { !$0.passed }
        let measured = failing.isEmpty
            ? "\(report.chip): \(report.axes.count) of \(report.axes.count) axes within limits"
            : "\(report.chip): " + failing.map { "\($0.name) \(format($0.response)) \($0.unit) outside \(format($0.limits.lowerBound))…\(format($0.limits.upperBound))" }
                .joined(separator: "; ")
        return HardwareCheckResult(name, report.passed ? .pass : .fail, measured: measured, limit: "datasheet self-test limits per axis")
    }

    private static func fifoCheck(_ imu: any IMUDriver, target: HardwareCheckTarget) -> (result: HardwareCheckResult, indices: [Int]) {
        let limit = "whole frames with consecutive sample indices from 0, no overflow"
        guard imu.hasFIFO else {
            return (HardwareCheckResult("FIFO read", .skip, measured: "\(imu.chip.name) has no FIFO", limit: "none: read on the timer"), [])
        }
        do throws(SensorError) {
            try imu.configure(imu.defaultConfiguration)
            try imu.enableFIFO()
            target.wait(fifoFillTime)
            let read = try imu.readFIFO()
            try imu.configure(imu.defaultConfiguration)  // stops the FIFO
            let indices = read.frames.map(\.sampleIndex)
            let consecutive = !indices.isEmpty && indices == Array(0..<indices.count)
            let measured = read.overflowed ? "overflowed"
                : indices.isEmpty ? "no frames after \(format(fifoFillTime)) s"
                : "\(indices.count) frames, indices \(indices.first ?? 0)…\(indices.last ?? 0)" + (consecutive ? "" : " not consecutive: \(indices)")
            return (HardwareCheckResult("FIFO read", consecutive && !read.overflowed ? .pass : .fail, measured: measured, limit: limit), indices)
        } catch {
            return (HardwareCheckResult("FIFO read", .fail, measured: "\(error)", limit: limit), [])
        }
    }

    // MARK: Stream checks

    private final class Collector: Sendable {
        let acceleration = Locked<[SIMD3<Double>]>([])
        let rotationRate = Locked<[SIMD3<Double>]>([])
        let errors = Locked<[MotionError]>([])
        let queue = DispatchQueue(label: "swift-motion.hardware-checks")
    }

    private static func measureStream(_ target: HardwareCheckTarget) -> Result<StreamMeasurements, MotionError> {
        let manager = target.manager
        let collector = Collector()
        manager.accelerometerUpdateInterval = 1 / rate
        manager.gyroUpdateInterval = 1 / rate
        manager.beginGeneratingDeviceOrientationNotifications()
        manager.startAccelerometerUpdates(to: collector.queue) { data, error in
            if let data { collector.acceleration.withLock { $0.append(data.acceleration) } }
            if let error { collector.errors.withLock { $0.append(error) } }
        }
        manager.startGyroUpdates(to: collector.queue) { data, error in
            if let data { collector.rotationRate.withLock { $0.append(data.rotationRate) } }
            if let error { collector.errors.withLock { $0.append(error) } }
        }
        target.wait(streamDuration)
        // Handlers already queued run before the stop: a stop drops deliveries still pending.
        collector.queue.sync {}
        manager.stopAccelerometerUpdates()
        manager.stopGyroUpdates()
        let orientation = manager.orientation
        manager.endGeneratingDeviceOrientationNotifications()

        if let error = collector.errors.withLock({ $0.first }) { return .failure(error) }
        let acceleration = collector.acceleration.withLock { $0 }
        let rotation = collector.rotationRate.withLock { $0 }.map { $0 * 180 / .pi }
        guard !acceleration.isEmpty, !rotation.isEmpty else {
            return .failure(.sensor("no samples delivered in \(format(streamDuration)) s"))
        }
        let gyroMean = mean(rotation)
        let gyroDeviation = rotation.reduce(SIMD3<Double>.zero) { $0 + ($1 - gyroMean) * ($1 - gyroMean) } / Double(rotation.count)
        return .success(StreamMeasurements(
            sampleCount: acceleration.count, gravityMagnitude: length(mean(acceleration)), gyroBias: gyroMean,
            gyroNoise: SIMD3(gyroDeviation.x.squareRoot(), gyroDeviation.y.squareRoot(), gyroDeviation.z.squareRoot()),
            orientation: orientation))
    }

    /// The rate, gravity, gyro and orientation results of a measured stream.
    static func streamResults(_ measured: StreamMeasurements, chip: String, bandwidth: Double) -> [HardwareCheckResult] {
        var results: [HardwareCheckResult] = []
        let expected = rate * streamDuration
        let rateOK = abs(Double(measured.sampleCount) - expected) <= expected * rateTolerance
        results.append(HardwareCheckResult(
            "100 Hz delivery", rateOK ? .pass : .fail,
            measured: "\(measured.sampleCount) samples in \(format(streamDuration)) s (\(format(Double(measured.sampleCount) / streamDuration)) Hz)",
            limit: "\(format(expected)) ± \(format(expected * rateTolerance)) samples (1 %)"))

        let gravity = GravityRestLimits.forChip(chip)
        let gravityOK = abs(measured.gravityMagnitude - 1) <= gravity.tolerance
        results.append(HardwareCheckResult(
            "gravity at rest", gravityOK ? .pass : .fail, measured: "\(format(measured.gravityMagnitude, digits: 4)) g",
            limit: gravity.description))

        if let limits = ChipRegistry.descriptor(named: chip)?.gyroRestLimits {
            let bias = max(abs(measured.gyroBias.x), abs(measured.gyroBias.y), abs(measured.gyroBias.z))
            results.append(HardwareCheckResult(
                "gyro bias at rest", bias <= limits.biasDPS ? .pass : .fail,
                measured: "largest axis \(format(bias, digits: 3)) °/s (\(vector(measured.gyroBias)))",
                limit: "±\(format(limits.biasDPS)) °/s, \(limits.source)"))
            let noise = max(measured.gyroNoise.x, measured.gyroNoise.y, measured.gyroNoise.z)
            let noiseLimit = limits.noiseLimit(bandwidth: bandwidth)
            results.append(HardwareCheckResult(
                "gyro noise at rest", noise <= noiseLimit ? .pass : .fail,
                measured: "largest axis \(format(noise, digits: 4)) °/s rms (\(vector(measured.gyroNoise)))",
                limit: "\(format(noiseLimit, digits: 4)) °/s rms = 2 × density × √\(format(bandwidth)) Hz, \(limits.source)"))
        } else {
            results.append(HardwareCheckResult(
                "gyro bias and noise at rest", .skip, measured: "bias \(vector(measured.gyroBias)) °/s, noise \(vector(measured.gyroNoise)) °/s rms",
                limit: "none known for \(chip)"))
        }

        results.append(HardwareCheckResult(
            "orientation lying flat", measured.orientation == .faceUp ? .pass : .fail,
            measured: "\(measured.orientation)", limit: "faceUp (board flat, components up)"))
        return results
    }

    private static func mean(_ values: [SIMD3<Double>]) -> SIMD3<Double> {
        values.reduce(.zero, +) / Double(max(values.count, 1))
    }

    private static func length(_ value: SIMD3<Double>) -> Double {
        (value * value).sum().squareRoot()
    }

    private static func format(_ value: Double, digits: Int = 2) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        return String(format: "%.\(digits)f", value)
    }

    private static func vector(_ value: SIMD3<Double>) -> String {
        "x \(format(value.x, digits: 4)), y \(format(value.y, digits: 4)), z \(format(value.z, digits: 4))"
    }
}
