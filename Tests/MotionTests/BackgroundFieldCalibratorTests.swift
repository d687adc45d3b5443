import FieldCalibration
import Fusion
import Locking
@testable import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// The seam between the sampler and the background magnetometer calibration
/// (``BackgroundFieldCalibrator``): on the simulated board in virtual time, the hub drives
/// whichever calibrator the device's `BackgroundCalibration` makes — a substitute that records
/// its calls and shifts the field, or none (``BackgroundFieldCalibratorFactory/off``) — and the
/// attitude estimator gets what the calibrator gives.
@Suite struct BackgroundFieldCalibratorTests {
    let clock = VirtualClock()
    static let shift = SIMD3<Double>(7, -3, 5)

    /// What the substitute calibrator and the attitude estimator saw, on the sampler's queue.
    final class Log: Sendable {
        struct Calls {
            var configurations: [BackgroundFieldCalibratorConfiguration] = []
            /// The fields handed to the calibrator, in order.
            var fieldsIn: [SIMD3<Double>] = []
            /// The fields the attitude estimator was given, in order.
            var fieldsFused: [SIMD3<Double>] = []
            var expected: [SIMD2<Double>?] = []
            var restarts = 0
            var calibrationChanges = 0
        }
        let calls = Locked(Calls())
    }

    /// Shifts every field by ``shift``, says so in its status (offset, `calibrated`), refreshes the
    /// status on every reading, and says the calibration changed on the first one only.
    struct Shifting: BackgroundFieldCalibrator {
        let log: Log
        private(set) var status: HardIronEstimator.Status
        var softIronFit: MagnetometerCalibration? { nil }
        private var told = false

        init(_ configuration: BackgroundFieldCalibratorConfiguration, log: Log) {
            self.log = log
            var status = configuration.makeEstimator().status
            status.offset = BackgroundFieldCalibratorTests.shift
            status.reason = .calibrated
            self.status = status
            log.calls.withLock { $0.configurations.append(configuration) }
        }

        mutating func correct(
            _ field: SIMD3<Double>, rotationRate: SIMD3<Double>, gyroBias: SIMD3<Double>, acceleration: SIMD3<Double>,
            interval: Double, timestamp: Double
        ) -> (field: SIMD3<Double>, checked: Bool, changed: Bool) {
            log.calls.withLock { $0.fieldsIn.append(field) }
            defer { told = true }
            return (field - BackgroundFieldCalibratorTests.shift, true, !told)
        }

        mutating func expect(field: SIMD2<Double>?) { log.calls.withLock { $0.expected.append(field) } }
        mutating func restartStretch() { log.calls.withLock { $0.restarts += 1 } }
    }

    /// This library's filter, recording the field it is given and the calibration changes it is told of.
    struct RecordingEstimator: AttitudeEstimator {
        var filter: AttitudeFilter
        let log: Log
        mutating func update(_ input: AttitudeEstimatorInput) {
            if let field = input.magneticField { log.calls.withLock { $0.fieldsFused.append(field) } }
            filter.update(input)
        }
        var quaternion9D: Quaternion { filter.quaternion9D }
        var quaternion6D: Quaternion { filter.quaternion6D }
        var gravity: SIMD3<Double> { filter.gravity }
        var gyroBias: SIMD3<Double> { filter.gyroBias }
        var magneticAccuracy: MagneticAccuracy { filter.magneticAccuracy }
        mutating func magneticCalibrationChanged() {
            log.calls.withLock { $0.calibrationChanges += 1 }
            filter.magneticCalibrationChanged()
        }
    }

    /// A manager on the simulated board (ordinary handling, nothing stored) whose background
    /// calibration is `calibrator`, fused by a ``RecordingEstimator``.
    private func manager(_ calibrator: BackgroundFieldCalibratorFactory, log: Log) throws -> MotionManager {
        let scenario = try #require(Scenario.named("ordinary-handling"))
        let (board, world) = Simulation(seed: 1).makeBoard(playing: scenario, clock: clock)
        let boardFile = try #require(BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID))
        let device = try DeviceOpener.open(bus: board.bus, board: boardFile, store: nil, pause: .none)
        let estimator = AttitudeEstimatorFactory { RecordingEstimator(filter: AttitudeFilter($0), log: log) }
        let hub = SensorHub(device: device, clock: clock, makeEstimator: estimator, background: BackgroundCalibration(calibrator: calibrator))
        return MotionManager(hub: hub, simulated: SimulatedHardware(board: board, world: world))
    }

    /// The hub makes the substitute once, hands it every reading, gives the attitude estimator the
    /// field it returns, tells the estimator of the change it reports, publishes its status,
    /// passes on a location's field and says when fusion restarted.
    @Test func theHubDrivesASubstituteCalibrator() throws {
        let log = Log()
        let manager = try manager(BackgroundFieldCalibratorFactory { Shifting($0, log: log) }, log: log)
        manager.startAccelerometerUpdates()
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 2)
        manager.location = GeographicLocation(latitude: 52.52, longitude: 13.40)
        clock.advance(by: 1)
        // Fusion pauses while only the accelerometer is wanted, and starts again.
        manager.stopDeviceMotionUpdates()
        clock.advance(by: 0.5)
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 0.5)
        let motion = try #require(manager.deviceMotion)
        let status = try #require(manager.backgroundCalibrationStatus)
        manager.stopDeviceMotionUpdates()
        manager.stopAccelerometerUpdates()

        let calls = log.calls.withLock { $0 }
        #expect(calls.configurations == [BackgroundFieldCalibratorConfiguration()], "made once, from no stored calibration")
        #expect(calls.fieldsIn.count > 250)
        #expect(calls.fieldsFused == calls.fieldsIn.map { $0 - Self.shift }, "the estimator gets the calibrator's field")
        #expect(motion.magneticField.field == calls.fieldsFused.last)
        #expect(calls.calibrationChanges == 1)
        #expect(status.offset == Self.shift && status.reason == .calibrated)
        let berlin = try #require(calls.expected.first ?? nil, "the location's field was not passed on")
        #expect(calls.expected.count == 1 && abs(berlin.x - 49.8) < 1)
        #expect(calls.restarts == 1)
    }

    /// Turned off: the field reaches the attitude estimator as read, nothing is learned, and the
    /// status says so.
    @Test func turnedOffTheFieldPassesThrough() throws {
        let log = Log()
        let manager = try manager(.off, log: log)
        manager.startMagnetometerUpdates()
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        clock.advance(by: 30)
        let motion = try #require(manager.deviceMotion)
        let raw = try #require(manager.magnetometerData)
        let status = try #require(manager.backgroundCalibrationStatus)
        manager.stopDeviceMotionUpdates()
        manager.stopMagnetometerUpdates()

        #expect(motion.timestamp == raw.timestamp)
        #expect(motion.magneticField.field == raw.magneticField, "nothing stored: the field as read")
        #expect(status.reason == .off && status.offset == .zero && status.accuracy == .uncalibrated)
        #expect(motion.magneticField.accuracy == .uncalibrated)
        #expect(log.calls.withLock { $0.fieldsFused.count } > 2_000)
    }
}
