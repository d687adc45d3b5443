/// Accelerometer, gyroscope and magnetometer with on-chip fusion at one address: the IMU and the
/// magnetometer carry this family, told apart by ``ChipInfo/name``.
extension ChipInfo.Family {
    package static let bno055 = Self(rawValue: "Bosch BNO055")
}

/// Register map of the Bosch BNO055 (datasheet BST-BNO055-DS000, §4.2 "Register map", §4.3
/// "Register description"; addresses the same in the Linux kernel's
/// drivers/iio/imu/bno055/bno055.c). The map has two pages chosen by PAGE_ID (0x07, present on
/// both); everything the driver touches is on page 0.
enum BNO055Register {
    /// CHIP_ID, reads 0xA0 (§4.3; kernel BNO055_CHIP_ID_REG, BNO055_CHIP_ID_MAGIC).
    static let chipID: UInt8 = 0x00
    /// PAGE_ID: 0 or 1 (§4.3; kernel BNO055_PAGESEL_REG).
    static let pageID: UInt8 = 0x07
    /// ACC_DATA_X_LSB: accelerometer x, y, z (0x08–0x0D), magnetometer (0x0E–0x13), gyroscope
    /// (0x14–0x19), Euler heading, roll, pitch (0x1A–0x1F), quaternion w, x, y, z (0x20–0x27),
    /// all 16 bit little-endian (§4.3; kernel BNO055_ACC_DATA_X_LSB_REG …
    /// BNO055_QUAT_DATA_W_LSB_REG).
    static let accelerometerData: UInt8 = 0x08
    static let magnetometerData: UInt8 = 0x0E
    /// Bytes from ACC_DATA_X_LSB to QUA_DATA_Z_MSB: one burst holds every sensor and the quaternion.
    static let dataBlockLength = 32
    /// Where each part starts in that burst, in bytes.
    static let blockOffsets = (magnetometer: 6, gyroscope: 12, quaternion: 24)
    /// ST_RESULT: ST_ACC bit 0, ST_MAG bit 1, ST_GYR bit 2, ST_MCU bit 3; 1 = passed (§4.3).
    static let selfTestResult: UInt8 = 0x36
    /// SYS_STATUS: 0 idle, 1 system error, 2 initialising peripherals, 3 system initialisation,
    /// 4 executing self-test, 5 fusion running, 6 running without fusion (§4.3).
    static let systemStatus: UInt8 = 0x39
    /// SYS_ERR: the error code when SYS_STATUS reads 1 (§4.3; kernel BNO055_SYS_ERR_REG).
    static let systemError: UInt8 = 0x3A
    /// UNIT_SEL: ACC_Unit bit 0 (0 m/s²), GYR_Unit bit 1 (0 °/s), EUL_Unit bit 2 (0 degrees),
    /// TEMP_Unit bit 4 (0 °C), ORI_Android_Windows bit 7 (§4.3; kernel BNO055_UNIT_SEL_REG).
    static let unitSelection: UInt8 = 0x3B
    /// OPR_MODE: bits 3:0 (§4.3, §3.3; kernel BNO055_OPR_MODE_REG).
    static let operationMode: UInt8 = 0x3D
    /// PWR_MODE: bits 1:0, 0 normal (§4.3, §3.2; kernel BNO055_POWER_MODE_REG).
    static let powerMode: UInt8 = 0x3E
    /// SYS_TRIGGER: Self_Test bit 0, RST_SYS bit 5, RST_INT bit 6, CLK_SEL bit 7 (§4.3;
    /// kernel BNO055_SYS_TRIGGER_RST_SYS = BIT(5)).
    static let systemTrigger: UInt8 = 0x3F
}

/// OPR_MODE values (§3.3; kernel BNO055_OPR_MODE_CONFIG, _AMG, _FUSION).
enum BNO055Mode {
    static let config: UInt8 = 0x00
    static let accelerometerMagnetometerGyroscope: UInt8 = 0x07
    static let nineDegreesOfFreedom: UInt8 = 0x0C
}

/// SYS_TRIGGER bits (§4.3).
enum BNO055Trigger {
    static let selfTest: UInt8 = 0x01
    static let resetSystem: UInt8 = 0x20
}

/// What the BNO055 driver looks up: identity, the output scales and the one configuration the
/// fusion mode runs at.
struct BNO055Settings: Sendable {
    static let name = "BNO055"
    /// The magnetometer's name in ``ChipInfo/name``: it answers at the IMU's address, so the
    /// calibration store needs a name of its own for it.
    static let magnetometerName = "BNO055 magnetometer"
    /// CHIP_ID value (§4.3; kernel BNO055_CHIP_ID_MAGIC).
    static let identity: UInt8 = 0xA0
    /// MAG_ID (register 0x02) value: the BMM150 inside (§4.3; BNO055 register headers in other
    /// projects give the same: ACC_ID 0xFB, MAG_ID 0x32, GYR_ID 0x0F).
    static let magnetometerIdentity: UInt8 = 0x32

    /// Output scales with UNIT_SEL = 0 (§3.6.4 "Data output", the unit tables of §3.6.5): acceleration
    /// 1 m/s² = 100 LSB, angular rate 1 °/s = 16 LSB, field 1 µT = 16 LSB, quaternion
    /// 1 = 2^14 LSB (kernel: accel scale 1/100, magn 1/16, quaternion 1/(1 << 14)).
    ///
    /// The angular rate: Table 3-22 gives 1 °/s = 16 LSB and 1 rad/s = 900 LSB, 1.8 % apart as
    /// scales (900 LSB/(rad/s) is 15.71 LSB/(°/s)); the kernel's bno055.c uses 1/900 rad/s. Each
    /// belongs to its own UNIT_SEL GYR_Unit setting, not to one register value: §3.6.1 (Table
    /// 3-11) makes GYR_Unit choose the unit "regardless of operation mode"; Bosch's reference
    /// driver (BoschSensortec/BNO055_driver bno055.c at 6c5d87b, bno055_convert_*_gyro_*) sets
    /// UNIT_SEL to dps before dividing by BNO055_GYRO_DIV_DPS 16.0 and to rps before dividing by
    /// BNO055_GYRO_DIV_RPS 900.0; Bosch's community answer to "BNO055: Wrong sensitivity /
    /// resolution in datasheet?" (2019, marked solved; bno055.c cites the thread) says the
    /// firmware computes the rate in floating point and multiplies it by 16 or 900 by the unit
    /// selected; and the kernel writes BNO055_UNIT_SEL_GYR_RPS before it uses 900. So the driver
    /// keeps GYR_Unit = °/s with 16 (BNO055Tests.gyroscopeScaleGoesWithTheUnitSelected). Against
    /// it stands one field report (yoshito-n-students/bno055_usb_stick#15: a 1.5 % yaw-rate error
    /// against RTK GPS with 16 LSB/(°/s), closed without a change); the forum thread's own
    /// measurements of 16.3–16.4 were in AMG mode, whose range-dependent gyroscope scale bno055.c
    /// calls a firmware bug — this driver runs NDOF only.
    static let lsb = (perMetrePerSecondSquared: 100.0, perDegreePerSecond: 16.0, perMicrotesla: 16.0, perQuaternionUnit: 16384.0)
    /// Counts per g: 100 LSB per m/s² times standard gravity.
    static let accelerometerLSBPerG = lsb.perMetrePerSecondSquared * 9.80665

    /// In the fusion modes the chip fixes its sensors' settings (datasheet §3.3 "Operation modes"
    /// and §3.5 "Sensor configuration"; the kernel's fusion_vals: accel range 4 G, gyro scale
    /// 1/900 rad/s = 2000 °/s, magnetometer 20 Hz): accelerometer ±4 g, gyroscope ±2000 °/s, fusion output at 100 Hz,
    /// magnetometer at 20 Hz. The driver runs NDOF only, so these are the only values it accepts.
    /// (AMG mode would let page 1 choose ranges, but the kernel notes that firmware 0x0311 then
    /// scales the gyroscope wrongly; it is not offered.)
    static let tables = IMUTables(
        outputDataRates: [SettingOption(value: 100, code: BNO055Mode.nineDegreesOfFreedom)],
        accelerometerRanges: [SettingOption(value: 4, code: 0, sensitivity: accelerometerLSBPerG)],
        gyroscopeRanges: [SettingOption(value: 2000, code: 0, sensitivity: lsb.perDegreePerSecond)])
    /// The magnetometer in NDOF: 20 Hz (kernel bno055_mag_odr fusion_vals), ±1300 µT (the BMM150's
    /// x/y range, datasheet §1 "Specification").
    static let magnetometerRates = [SettingOption(value: 20, code: 0)]
    static let magnetometerRanges = [SettingOption(value: 1300, code: 0, sensitivity: lsb.perMicrotesla)]

    /// ST_RESULT bits and the sensor each reports on (§4.3).
    static let selfTestBits: [(name: String, bit: UInt8)] = [
        ("accelerometer", 0x01), ("magnetometer", 0x02), ("gyroscope", 0x04), ("microcontroller", 0x08),
    ]
    /// SYS_STATUS while the self-test runs (§4.3).
    static let executingSelfTest: UInt8 = 4
}
