import I2C

extension LSM9DS1IMU: BusPlacedDriver {}

extension ChipDescriptor {
    /// The accelerometer and gyroscope: WHO_AM_I 0x68 at 0x0F, at 0x6A (SDO_AG low) or 0x6B. A
    /// FIFO level is read as the gyroscope set (OUT_X_L_G, 6 bytes) and the accelerometer set
    /// (OUT_X_L_XL, 6 bytes), no timestamps (§3.5). Its magnetometer is a separate device on the
    /// host bus with the LIS3MDL's identity (``lis3mdl``).
    package static let lsm9ds1 = ChipDescriptor(
        imu: LSM9DS1IMU.name, cliNames: ["lsm9ds1"], family: .lsm9ds1,
        identity: ChipIdentity(register: LSM9DS1Register.whoAmI, value: [LSM9DS1Settings().identity], addresses: [I2CAddress(0x6A), I2CAddress(0x6B)]),
        tables: LSM9DS1Settings().tables, fifo: FIFOLayout(bytesPerSample: 12), gyroRestLimits: nil,
        outputDelay: .none(because: "DocID025715 Table 47 gives the LPF2 cut-offs per ODR and BW_G, but the driver reads the LPF1 output (OUT_SEL = 00, CTRL_REG2_G), whose cut-off the datasheet does not give, and no delay; no copy of Table 47 was reachable either, so no figure is claimed (see README, Benchmarks and accuracy)"), packagedMagnetometer: PackagedMagnetometer(chip: LIS3MDLMagnetometer.settings.name, behindBypass: false, axes: magnetometerAxes),
        make: factory(LSM9DS1IMU.self))

    /// The LSM9DS1's magnetometer (DocID025715, figure "Pin indication and axes directions",
    /// p. 10; PX4 DriverFramework pull request 160): x = −IMU x, y and z along.
    static let magnetometerAxes = AxisMatrix(SIMD3(-1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1))
}
