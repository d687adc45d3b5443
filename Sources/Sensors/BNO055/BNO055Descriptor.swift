import I2C

extension BNO055IMU: BusPlacedDriver {}

extension ChipDescriptor {
    /// CHIP_ID 0xA0 at 0x00 (on page 0, where the chip starts and where BNO055IMU leaves it), at
    /// 0x28 (COM3 low) or 0x29. No FIFO; its magnetometer is the driver's companion (same address).
    /// It stretches the I2C clock (its datasheet's I2C protocol section; Adafruit's guide
    /// "Raspberry Pi I2C Clock Stretching Fixes").
    package static let bno055 = ChipDescriptor(
        imu: BNO055Settings.name, cliNames: ["bno055"], family: .bno055,
        identity: ChipIdentity(register: BNO055Register.chipID, value: [BNO055Settings.identity], addresses: [I2CAddress(0x28), I2CAddress(0x29)]),
        tables: BNO055Settings.tables, fifo: nil, gyroRestLimits: nil,
        outputDelay: .none(because: "NDOF fixes the sensors' filters (BST-BNO055-DS000 §3.3) and the datasheet gives no delay for them or for the fused attitude; the chip's own attitude (attitudeSource .chip) is as late as its firmware makes it"),
        stretchesClock: true, make: factory(BNO055IMU.self))
}
