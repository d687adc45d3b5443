import I2C

extension BMI160IMU: BusPlacedDriver {}

extension ChipDescriptor {
    /// CHIP_ID 0xD1 at 0x00, at 0x68 (SDO low) or 0x69; header-mode FIFO frames (header + 12
    /// bytes) and the 24-bit sensortime.
    package static let bmi160 = ChipDescriptor(
        imu: BMI160Settings.name, cliNames: ["bmi160"], family: .bmi160,
        identity: ChipIdentity(register: BMI160Register.chipID, value: [BMI160Settings.identity], addresses: [I2CAddress(0x68), I2CAddress(0x69)]),
        tables: BMI160Settings.tables,
        fifo: FIFOLayout(
            bytesPerSample: BMI160IMU.fifoFrameSize, timestamp: FIFOTimestampFormat(lsb: BMI160FIFO.sensorTimeLSB, wrap: BMI160FIFO.sensorTimeWrap)),
        gyroRestLimits: GyroRestLimits(biasDPS: 3, noiseDensityDPS: 0.007, source: "BST-BMI160-DS000 Table 2: zero-rate offset ±3 °/s, 0.007 °/s/√Hz"),
        outputDelay: .none(because: "the driver runs the normal filter mode (gyr_bwp = 0b10), whose 3-dB cut-off per ODR BST-BMI160-DS000 §2.4.2 tabulates without a delay; the copies of §2.4.2 that were reachable stop before the table and no driver source quotes it, so no bandwidth, and no delay, is claimed (see README, Benchmarks and accuracy)"),
        spi: .boschBMI160, make: factory(BMI160IMU.self))
}
