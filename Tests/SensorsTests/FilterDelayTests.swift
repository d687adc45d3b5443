import MotionSimulator
import Sensors
import Testing

/// The InvenSense chips' digital low-pass filters delay their outputs by what the register maps'
/// DLPF tables say; the driver reports the gyroscope's delay for the filter it configured, and the
/// emulator's outputs lag by it (its own table, from the same datasheets).
@Suite struct FilterDelayTests {
    /// Turning about z at a rate that grows by 100 °/s every second, accelerating along x by 1 g
    /// per second: a reading's value tells the time it shows.
    struct Ramp: PhysicalSource {
        func state(at time: Double) -> PhysicalState {
            PhysicalState(
                time: time, specificForce: SIMD3(PhysicalState.standardGravity * time, 0, PhysicalState.standardGravity),
                angularRate: SIMD3(0, 0, 100 * time * .pi / 180), magneticField: SIMD3(20.7, 0, -44.4))
        }
    }

    /// At their defaults (200 Hz, DLPF_CFG 2): MPU-6050 gyroscope 2.8 ms, accelerometer 3.0 ms
    /// (RM-MPU-6000A §4.3); MPU-6500/9250 gyroscope 3.9 ms, accelerometer 2.88 ms (RM-MPU-9250A
    /// §4.6, §4.8). Other chips report 0: their datasheets give no delay.
    @Test(arguments: [
        (SimulatedBoard.IMU.mpu6050, 0.0028, 0.0030), (.mpu6500, 0.0039, 0.00288), (.mpu9250, 0.0039, 0.00288),
        (.lsm6dsox, 0, 0),
    ])
    func outputsLagByTheDatasheetDelay(imu: SimulatedBoard.IMU, gyroscopeDelay: Double, accelerometerDelay: Double) throws {
        let time = ManualTime(0)
        let rig = try EmulatedRig(imu: imu, magnetometer: .none, source: Ramp(), time: time)
        #expect(rig.imu.outputDelay == gyroscopeDelay)
        time.set(2)
        let sample = try rig.imu.readSample()
        let raw = try #require(sample.raw)
        // The time each reading shows, to within one LSB of its ramp.
        let gyroscopeTime = sample.rotationRate.z * 180 / .pi / 100
        let accelerometerTime = -sample.acceleration.x
        #expect(abs(gyroscopeTime - (2 - gyroscopeDelay)) <= 1 / raw.gyroscopeLSBPerDPS / 100, "\(gyroscopeTime)")
        #expect(abs(accelerometerTime - (2 - accelerometerDelay)) <= 1 / raw.accelerometerLSBPerG, "\(accelerometerTime)")
    }

    /// Every emulated chip's driver, configured at its defaults, reports the delay its descriptor's
    /// citation gives: the MPU family's register-map tables, the ICM-20948's derivation from the
    /// MPU-9250's table (1.96 ms + 1 / (2π · 51.2 Hz) at GYRO_DLPFCFG 3), the ICM-42688-P's
    /// 2nd-order Butterworth at its reset bandwidth (√2 / (2π · max(400, 200) / 4 Hz) at 200 Hz);
    /// every other chip 0, each with its reason.
    static let icm20948Delay: Double = 0.00196 + 1 / (2 * Double.pi * 51.2)
    static let icm42688Delay: Double = 2.0.squareRoot() / (2 * Double.pi * 100)
    static let citedDelays: [(SimulatedBoard.IMU, Double)] = [
        (.mpu6050, 0.0028), (.mpu9250, 0.0039), (.icm20948, icm20948Delay), (.icm42688, icm42688Delay),
        (.lsm6dsox, 0), (.lsm6dsl, 0), (.lsm6ds3, 0), (.lsm6dsr, 0), (.lsm9ds1, 0), (.bmi160, 0), (.bno055, 0),
    ]

    @Test(arguments: citedDelays)
    func eachDriverReportsItsCitedDelay(imu: SimulatedBoard.IMU, delay: Double) throws {
        let rig = try EmulatedRig(imu: imu, magnetometer: .none, source: Ramp(), time: ManualTime(0))
        #expect(abs(rig.imu.outputDelay - delay) < 1e-9, "\(imu): \(rig.imu.outputDelay)")
        let descriptor = try #require(ChipRegistry.descriptor(cliName: imu.rawValue))
        if delay == 0 {
            guard case .none(let reason) = descriptor.outputDelay else { Issue.record("\(imu) claims a delay"); return }
            #expect(!reason.isEmpty)
        }
    }
}
