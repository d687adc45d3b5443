import Dispatch
import Foundation
import Fusion
import I2C
import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// The whole path on the simulated board, in virtual time: emulated chips → simulated bus →
/// drivers → sampler → fusion → manager.
@Suite struct SimulatedBoardTests {
    let clock = VirtualClock()

    func manager(_ simulation: Simulation) throws -> MotionManager {
        try MotionManager(source: .simulated(simulation), clock: clock, calibrationStore: nil)
    }

    @Test(arguments: SimulatedBoard.IMU.allCases)
    func restingBoardReadsOneGDownAtOneHundredHertz(imu: SimulatedBoard.IMU) throws {
        let motion = try manager(Simulation(scenario: "rest", imu: imu, sensorErrors: false))
        let (values, errors) = motion.accelerometerUpdates { clock.advance(by: 5) }
        #expect(values.count == 500)
        #expect(errors == [])
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        let last = try #require(values.last)
        #expect(abs(last.acceleration.x) < 0.002 && abs(last.acceleration.y) < 0.002 && abs(last.acceleration.z + 1) < 0.002,
                "\(imu): \(last.acceleration)")
        #expect(motion.isMagnetometerAvailable)
    }

    /// Every board's magnetometer, separate or a die inside the IMU's package with axes of its own
    /// (MPU-9250, ICM-20948, LSM9DS1), reads the same field in device axes: the rest scenario's
    /// Earth field, north along x and pointing down. Without hard or soft iron, ideal sensors.
    @Test(arguments: SimulatedBoard.IMU.allCases)
    func everyMagnetometerReadsTheFieldInDeviceAxes(imu: SimulatedBoard.IMU) throws {
        let motion = try manager(Simulation(scenario: "rest", imu: imu, sensorErrors: false, hardIron: .zero, softIron: .identity))
        let world = try #require(motion.simulatedHardware).world
        motion.startMagnetometerUpdates()
        clock.advance(by: 1)
        motion.stopMagnetometerUpdates()
        let field = try #require(motion.magnetometerData).magneticField
        let expected = world.state(at: 1).magneticField
        let error = field - expected
        // Within the coarsest chip's resolution (the QMC5883L's 0.33 µT, the AK8963's 0.6 µT at 14 bit).
        #expect((error * error).sum().squareRoot() < 1.5, "\(imu): \(field), world \(expected)")
    }

    @Test(arguments: SimulatedBoard.IMU.allCases)
    func eachSampleIsOneTransactionPerChip(imu: SimulatedBoard.IMU) throws {
        let motion = try manager(Simulation(scenario: "rest", imu: imu, sensorErrors: false))
        let board = try #require(motion.simulatedHardware).board
        motion.startGyroUpdates()
        clock.advance(by: 0.05)   // the first tick initialises the chips
        board.bus.clearLog()
        clock.advance(by: 0.01)
        let log = board.bus.log
        motion.stopGyroUpdates()
        // One burst read of the IMU, one of the magnetometer; the BNO055's burst holds both, the
        // BMI270 reads its BMM150 on its own (its second burst, of DATA_0 … DATA_7, is at its own
        // address). The MPU-9150's AK8975 has no continuous mode: its burst is followed by one
        // write triggering the next measurement.
        if imu == .bno08x {
            // A hub that speaks packets, not registers: the packet's header, the packet, and the
            // header of length 0 that says nothing more waits; the field came in the same packet.
            // The packet: its header, a base timestamp (5 bytes), accelerometer, gyroscope and field
            // (10 each), rotation vector (14); every tenth also the step counter and stability classifier.
            #expect(log.map(\.operations) == [[.read(count: 4)], [.read(count: 53)], [.read(count: 4)]]
                || log.map(\.operations) == [[.read(count: 4)], [.read(count: 71)], [.read(count: 4)]], "\(log)")
            #expect(log.allSatisfy { $0.failure == nil && $0.address == board.imuAddress }, "\(log)")
            return
        }
        let expected = imu == .bno055 ? [board.imuAddress]
            : imu == .bmi270 ? [board.imuAddress, board.imuAddress] : [board.imuAddress, try #require(board.magnetometerAddress)]
        let reads = log.filter { $0.operations.count == 2 }
        #expect(reads.map(\.address) == expected, "\(log)")
        #expect(log.allSatisfy { $0.failure == nil }, "\(log)")
        let writes = log.filter { $0.operations.count == 1 }
        #expect(writes.map(\.operations) == (imu == .mpu9150 ? [[.write([0x0A, 0x01])]] : []), "\(log)")
        #expect(log.count == reads.count + writes.count)
    }

    /// Tumbling at up to 4 rad/s with the LSM6DSOX's and LIS3MDL's datasheet noise and bias, a
    /// magnetometer free of hard and soft iron (as after calibration), 100 Hz: after 10 s the
    /// attitude (magnetic north frame) stays within a few degrees of the truth. (The gyroscope's
    /// 0.2–0.4 % scale-factor error alone turns 4 rad/s into almost 1 °/s of drift: measured RMS
    /// 1.5°, worst 2.3° with seed 3.)
    @Test func fusedAttitudeFollowsTheSimulatedWorld() throws {
        let motion = try manager(Simulation(scenario: "tumble", seed: 3, hardIron: .zero, softIron: .identity))
        let world = try #require(motion.simulatedHardware).world
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        var errors: [Double] = []
        for _ in 0..<300 {
            clock.advance(by: 0.1)
            let estimate = try #require(motion.deviceMotion)
            // Truth: device → East-North-Up (true north). Ours: device → x magnetic north, z up,
            // whose x lies at yaw π/2 − declination from east.
            let truth = Quaternion.aboutZ(-(.pi / 2 - world.earthField.declination)) * world.truth(at: estimate.timestamp).attitude
            let error = estimate.attitude.quaternion * truth.conjugate
            if estimate.timestamp - world.startTime > 10 { errors.append(2 * acos(min(1, abs(error.w))) * 180 / .pi) }
        }
        motion.stopDeviceMotionUpdates()
        let rms = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
        #expect(errors.count == 200)
        #expect(rms < 2, "attitude RMS error after 10 s: \(rms)°")
        #expect(errors.max() ?? .infinity < 3, "worst attitude error after 10 s: \(errors.max() ?? .nan)°")
    }
}
