import Locking
import I2C
import MotionSimulator
import Sensors
import Testing

/// Drivers against emulators, both written from the datasheets independently: a known physical
/// input comes back within one LSB at every full scale, and self-tests tell a healthy chip from
/// one with a dead axis. The LSB sizes here are the test's own, from the datasheets.
@Suite struct EmulatorRoundTripTests {
    static let g = PhysicalState.standardGravity
    static let degree = Double.pi / 180

    /// Full scales (g, °/s) and the datasheet sensitivities (g/LSB, °/s per LSB).
    struct IMURanges {
        var accelerometer: [(range: Double, lsb: Double)]
        var gyroscope: [(range: Double, lsb: Double)]
    }

    static func ranges(_ imu: SimulatedBoard.IMU) -> IMURanges? {
        switch imu {
        case .mpu6050, .mpu6500, .mpu9150, .mpu9250:
            // MPU-6000/6050 product specification §6.1–6.2 (MPU-6500/9150/9250 the same): AFS_SEL, FS_SEL.
            IMURanges(accelerometer: [(2, 1 / 16384), (4, 1 / 8192), (8, 1 / 4096), (16, 1 / 2048)],
                      gyroscope: [(250, 1 / 131), (500, 1 / 65.5), (1000, 1 / 32.8), (2000, 1 / 16.4)])
        case .icm20948:
            // ICM-20948 DS-000189 §3.1–3.2: ACCEL_FS_SEL and GYRO_FS_SEL sensitivities.
            IMURanges(accelerometer: [(2, 1 / 16384), (4, 1 / 8192), (8, 1 / 4096), (16, 1 / 2048)],
                      gyroscope: [(250, 1 / 131), (500, 1 / 65.5), (1000, 1 / 32.8), (2000, 1 / 16.4)])
        case .lsm6dsox, .lsm6dsl, .lsm6ds3:
            // LSM6DSOX DS12814 Table 2 (LSM6DSL/DS3 the same): linear acceleration and angular rate sensitivity.
            IMURanges(accelerometer: [(2, 0.061e-3), (4, 0.122e-3), (8, 0.244e-3), (16, 0.488e-3)],
                      gyroscope: [(125, 4.375e-3), (250, 8.75e-3), (500, 17.5e-3), (1000, 35e-3), (2000, 70e-3)])
        case .lsm6dsr:
            // LSM6DSR DS12412 Table 2: as the LSM6DSOX with ±4000 dps at 140 mdps/LSB.
            IMURanges(accelerometer: [(2, 0.061e-3), (4, 0.122e-3), (8, 0.244e-3), (16, 0.488e-3)],
                      gyroscope: [(125, 4.375e-3), (250, 8.75e-3), (500, 17.5e-3), (1000, 35e-3), (2000, 70e-3), (4000, 140e-3)])
        case .bmi160:
            // BST-BMI160-DS000 §1 Tables 1–2: ACC_RANGE ±2…16 g, GYR_RANGE ±125…2000 °/s.
            IMURanges(accelerometer: [(2, 1 / 16384), (4, 1 / 8192), (8, 1 / 4096), (16, 1 / 2048)],
                      gyroscope: [(125, 1 / 262.4), (250, 1 / 131.2), (500, 1 / 65.6), (1000, 1 / 32.8), (2000, 1 / 16.4)])
        case .bmi270:
            // BST-BMI270-DS000 "Specification": ACC_RANGE ±2…16 g, GYR_RANGE ±125…2000 °/s.
            IMURanges(accelerometer: [(2, 1 / 16384), (4, 1 / 8192), (8, 1 / 4096), (16, 1 / 2048)],
                      gyroscope: [(125, 1 / 262.4), (250, 1 / 131.2), (500, 1 / 65.6), (1000, 1 / 32.8), (2000, 1 / 16.4)])
        case .lsm9ds1:
            // LSM9DS1 DocID025715 Table 3: linear acceleration and angular rate sensitivity.
            IMURanges(accelerometer: [(2, 0.061e-3), (4, 0.122e-3), (8, 0.244e-3), (16, 0.732e-3)],
                      gyroscope: [(245, 8.75e-3), (500, 17.5e-3), (2000, 70e-3)])
        case .icm42688:
            // ICM-42688-P DS-000347 Table 2 (ACCEL_FS_SEL) and Table 1 (GYRO_FS_SEL).
            IMURanges(accelerometer: [(2, 1 / 16384), (4, 1 / 8192), (8, 1 / 4096), (16, 1 / 2048)],
                      gyroscope: [(15.625, 1 / 2097.2), (31.25, 1 / 1048.6), (62.5, 1 / 524.3), (125, 1 / 262),
                                  (250, 1 / 131), (500, 1 / 65.5), (1000, 1 / 32.8), (2000, 1 / 16.4)])
        case .icm45686:
            // ICM-45686 DS-000577 full scales (ACCEL_UI_FS_SEL, GYRO_UI_FS_SEL); sensitivities 32768 / full scale
            // as InvenSense tabulates them (DS-000577's table not reached; the ICM-42688-P's DS-000347 Tables 1–2).
            IMURanges(accelerometer: [(2, 1 / 16384), (4, 1 / 8192), (8, 1 / 4096), (16, 1 / 2048), (32, 1 / 1024)],
                      gyroscope: [(15.625, 1 / 2097.2), (31.25, 1 / 1048.6), (62.5, 1 / 524.3), (125, 1 / 262),
                                  (250, 1 / 131), (500, 1 / 65.5), (1000, 1 / 32.8), (2000, 1 / 16.4), (4000, 1 / 8.2)])
        case .lsm6dso32:
            // LSM6DSO32 DS13159 Table 2: ±4…32 g.
            IMURanges(accelerometer: [(4, 0.122e-3), (8, 0.244e-3), (16, 0.488e-3), (32, 0.976e-3)],
                      gyroscope: [(125, 4.375e-3), (250, 8.75e-3), (500, 17.5e-3), (1000, 35e-3), (2000, 70e-3)])
        case .bno055:
            // BST-BNO055-DS000 §3.6: NDOF fixes ±4 g and ±2000 °/s; 1 m/s² = 100 LSB, 1 °/s = 16 LSB.
            IMURanges(accelerometer: [(4, 0.01 / g)], gyroscope: [(2000, 1.0 / 16)])
        case .adxl345:
            // ADXL345 Rev. G Table 1: 3.9 mg/LSB (256 LSB/g) at every range in full resolution; no gyroscope.
            IMURanges(accelerometer: [(2, 1 / 256), (4, 1 / 256), (8, 1 / 256), (16, 1 / 256)], gyroscope: [])
        case .lsm6dsv16x:
            // LSM6DSV16X DS13510 Table 2: ±2…16 g at 0.061…0.488 mg/LSB, ±125…4000 dps at 4.375…140 mdps/LSB.
            IMURanges(accelerometer: [(2, 0.061e-3), (4, 0.122e-3), (8, 0.244e-3), (16, 0.488e-3)],
                      gyroscope: [(125, 4.375e-3), (250, 8.75e-3), (500, 17.5e-3), (1000, 35e-3), (2000, 70e-3), (4000, 140e-3)])
        case .bno08x:
            // BNO080/BNO085 datasheet 1000-3927 (±8 g, ±2000 °/s) and its Q points: acceleration Q8 m/s²,
            // angular rate Q9 rad/s.
            IMURanges(accelerometer: [(8, 1 / (256 * g))], gyroscope: [(2000, 1 / (512 * degree))])
        default: nil
        }
    }

    @Test(arguments: SimulatedBoard.IMU.allCases)
    func imuReadsBackAKnownInputAtEveryRange(imu: SimulatedBoard.IMU) throws {
        let table = try #require(Self.ranges(imu), "\(imu): no datasheet ranges written here")
        for (accelerometerRange, accelerometerLSB) in table.accelerometer {
            // An accelerometer alone (no gyroscope table) reads a rotation rate of 0 whatever turns it.
            let gyroscopes: [(range: Double, lsb: Double?)] = table.gyroscope.isEmpty ? [(500, nil)] : table.gyroscope.map { ($0.range, $0.lsb) }
            for (gyroscopeRange, gyroscopeLSB) in gyroscopes {
                let force = SIMD3(0.61, -0.37, 0.83) * accelerometerRange * Self.g          // m/s², within range
                let rate = SIMD3(0.52, -0.71, 0.33) * gyroscopeRange * Self.degree         // rad/s, within range
                let time = ManualTime(1)
                var state = PhysicalState.flatAtRest()
                state.specificForce = force
                state.angularRate = rate
                let rig = try EmulatedRig(imu: imu, magnetometer: .none, source: ConstantSource(state), time: time)
                let rate0 = rig.imu.defaultConfiguration.outputDataRate
                try rig.imu.configure(IMUConfiguration(outputDataRate: rate0, accelerometerRange: accelerometerRange, gyroscopeRange: gyroscopeRange))
                time.set(1.1)
                let sample = try rig.imu.readSample()
                let accelerationError = largestDifference(sample.acceleration, -force / Self.g)
                let rateError = largestDifference(sample.rotationRate, rate)
                #expect(accelerationError <= accelerometerLSB * 1.001, "\(imu) ±\(accelerometerRange) g: \(accelerationError / accelerometerLSB) LSB")
                if let gyroscopeLSB {
                    #expect(rateError <= gyroscopeLSB * Self.degree * 1.001, "\(imu) ±\(gyroscopeRange) °/s: \(rateError / (gyroscopeLSB * Self.degree)) LSB")
                } else {
                    #expect(sample.rotationRate == .zero, "\(imu)")
                }
                #expect(!sample.isSaturated)
            }
        }
    }

    /// Full scales (µT) and LSB sizes (µT) of each magnetometer, from its datasheet.
    static let magnetometers: [(chip: SimulatedBoard.Magnetometer, ranges: [(range: Double, lsb: Double)])] = [
        // LIS3MDL DS10530 Table 2: 6842/3421/2281/1711 LSB/gauss at ±4/8/12/16 gauss.
        (.lis3mdl, [(400, 100 / 6842), (800, 100 / 3421), (1200, 100 / 2281), (1600, 100 / 1711)]),
        // LIS2MDL DS12144 Table 2: 1.5 mgauss/LSB, ±50 gauss.
        (.lis2mdl, [(4915.2, 0.15)]),
        // QMC5883L datasheet Table 2: 12000/3000 LSB/gauss at ±2/8 gauss.
        (.qmc5883l, [(200, 100.0 / 12000), (800, 100.0 / 3000)]),
        // HMC5883L Table 9: gain 1370 … 230 LSB/gauss for ±0.88 … ±8.1 gauss.
        (.hmc5883l, [(88, 100 / 1370), (130, 100 / 1090), (190, 100 / 820), (250, 100 / 660),
                     (400, 100 / 440), (470, 100 / 390), (560, 100 / 330), (810, 100 / 230)]),
        // BMM150 BST-BMM150-DS001 Table 2: ±1300 µT (x, y), resolution 0.3 µT.
        (.bmm150, [(1300, 0.3)]),
    ]

    @Test func magnetometersReadBackAKnownFieldAtEveryRange() throws {
        for (chip, ranges) in Self.magnetometers {
            for (range, lsb) in ranges {
                let field = SIMD3(0.43, -0.29, 0.51) * min(range, 400)   // µT, within range
                let time = ManualTime(1)
                var state = PhysicalState.flatAtRest()
                state.magneticField = field
                let rig = try EmulatedRig(imu: .lsm6dsox, magnetometer: .chip(chip), source: ConstantSource(state), time: time)
                let magnetometer = try #require(rig.magnetometer)
                try magnetometer.configure(MagnetometerConfiguration(outputDataRate: magnetometer.defaultConfiguration.outputDataRate, range: range))
                time.set(1.5)
                let error = largestDifference(try magnetometer.readSample().field, field)
                #expect(error <= lsb * 1.001, "\(chip) ±\(range) µT: \(error / lsb) LSB")
            }
        }
    }

    /// FIFO chip timestamps on the emulators, their clocks 300 ppm fast: frames in order, each
    /// with a chip time, 1 / ODR apart on the chip's clock within the timestamp's resolution
    /// (ICM-42688-P and ICM-45686 packet timestamps, 1 µs, 200 Hz, over more than one 65.5 ms
    /// wrap of the counter; LSM6DSOX timestamp words, 25 µs, 208 Hz).
    @Test(arguments: [(SimulatedBoard.IMU.icm42688, 200.0, 1e-6), (.lsm6dsox, 208.0, 25e-6), (.lsm6dsv16x, 240.0, 21.75e-6), (.icm45686, 200.0, 1e-6)])
    func fifoFramesCarryChipTimesOneSamplePeriodApart(imu: SimulatedBoard.IMU, rate: Double, resolution: Double) throws {
        let (frames, steps) = try emulatedFIFOFrames(imu, driftPPM: 300, reads: 100)
        #expect(frames.count >= Int(1.95 * rate))
        #expect(frames.map(\.sampleIndex) == Array(0..<frames.count))
        #expect(steps.count == frames.count - 1)
        #expect(steps.allSatisfy { abs($0 - 1 / rate) <= resolution * 1.001 }, "\(imu): \(steps.min() ?? 0)…\(steps.max() ?? 0) s")
        #expect(steps.reduce(0, +) > 0.065536)
    }

    @Test(arguments: SimulatedBoard.IMU.allCases)
    func imuSelfTestPassesWhenHealthyAndFailsWithADeadAxis(imu: SimulatedBoard.IMU) throws {
        if imu == .bno08x || imu == .icm45686 {
            // SH-2 has no self-test command (the hub tests itself at start-up); the ICM-45686's
            // is not in its driver: the driver says so.
            let rig = try EmulatedRig(imu: imu, magnetometer: .none, source: ConstantSource(), time: ManualTime(1))
            #expect { try rig.imu.selfTest() } throws: { error in
                if case SensorError.notSupported = error { true } else { false }
            }
            return
        }
        for dead in [false, true] {
            let time = ManualTime(1)
            let rig = try EmulatedRig(
                imu: imu, magnetometer: .none, source: ConstantSource(), time: time,
                // Accelerometer-only chips, and the BMI270, whose driver runs the accelerometer's self-test
                // alone (its gyroscope's is the feature engine's): a dead accelerometer axis there.
                imuOptions: EmulatorOptions(deadAxes: dead ? [imu == .adxl345 || imu == .bmi270 ? .accelerometer(.z) : .gyroscope(.z)] : []),
                pausesAdvanceTime: true)
            let report = try rig.imu.selfTest()
            #expect(report.passed == !dead, "\(imu) dead axis \(dead): \(report)")
        }
    }

    @Test(arguments: [SimulatedBoard.Magnetometer.lis3mdl, .lis2mdl, .hmc5883l])
    func magnetometerSelfTestPassesWhenHealthyAndFailsWithADeadAxis(chip: SimulatedBoard.Magnetometer) throws {
        for dead in [false, true] {
            let time = ManualTime(1)
            let rig = try EmulatedRig(
                imu: .lsm6dsox, magnetometer: .chip(chip), source: ConstantSource(), time: time,
                magnetometerOptions: EmulatorOptions(deadAxes: dead ? [.magnetometer(.x)] : []), pausesAdvanceTime: true)
            let report = try #require(rig.magnetometer).selfTest()
            #expect(report.passed == !dead, "\(chip) dead axis \(dead): \(report)")
        }
    }
}

/// The largest per-axis difference.
func largestDifference(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
    let difference = a - b
    return max(abs(difference.x), abs(difference.y), abs(difference.z))
}
