import I2C

extension BMI270IMU: BusPlacedDriver {}

extension ChipDescriptor {
    /// CHIP_ID 0x24 at 0x00, at 0x68 (SDO low) or 0x69; header-mode FIFO frames (header + 12
    /// bytes, the BMI160's format) and the 24-bit sensortime.
    package static let bmi270 = ChipDescriptor(
        imu: BMI270Settings.name, cliNames: ["bmi270"], family: .bmi270,
        identity: ChipIdentity(register: BMI270Register.chipID, value: [BMI270Settings.identity], addresses: [I2CAddress(0x68), I2CAddress(0x69)]),
        tables: BMI270Settings.tables,
        fifo: FIFOLayout(
            bytesPerSample: BMI270IMU.fifoFrameSize, timestamp: FIFOTimestampFormat(lsb: BMI160FIFO.sensorTimeLSB, wrap: BMI160FIFO.sensorTimeWrap)),
        gyroRestLimits: GyroRestLimits(
            biasDPS: 0.5, noiseDensityDPS: 0.008,
            source: "BST-BMI270-DS000 gyroscope specification: zero-rate offset ±0.5 °/s, output noise density 0.008 °/s/√Hz"),
        outputDelay: .none(because: "the datasheet's filter tables give the 3-dB cut-off per ODR in performance mode, no group delay; none is claimed"),
        spi: .boschBMI270, wiring: BMI270IMU.wiring, stepCounter: BMI270IMU.stepCounterFeature,
        make: factory(BMI270IMU.self))
}

extension BMI270IMU {
    /// What `doctor` says of a BMI270 it finds.
    static let wiring = "the BMI270 runs only once Bosch's configuration file is loaded into it, at every start "
        + "(swift-motion does this and checks INTERNAL_STATUS). An upload that ends in init_err (0x02) means bytes arrived wrong: "
        + "keep the leads short, use 2.2–10 kΩ pull-ups to 3.3 V and lower the bus speed. Other software that splits the 8 KB file "
        + "into small writes must set INIT_ADDR (0x5B/0x5C) before each one, or every write lands on the last (swift-motion writes "
        + "32-byte bursts, each behind its address). Keep CSB high at power-up: a low CSB switches the chip to SPI until the next "
        + "power cycle. SDO low gives 0x68, high 0x69."
}
