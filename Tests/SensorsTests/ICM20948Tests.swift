import I2C
import I2CMock
import Sensors
import Testing

/// ICM-20948 register addresses from DS-000189 §7–§10 and AK09916 addresses from its datasheet
/// §9, written here independently of the drivers.
private enum ICM {
    static let bankSel: UInt8 = 0x7F  // USER_BANK bits 5:4, every bank
    // bank 0
    static let whoAmI: UInt8 = 0x00, userCtrl: UInt8 = 0x03, pwrMgmt1: UInt8 = 0x06, intPinCfg: UInt8 = 0x0F
    static let accelXoutH: UInt8 = 0x2D
    // bank 2
    static let gyroSmplrtDiv: UInt8 = 0x00, gyroConfig1: UInt8 = 0x01
    static let accelSmplrtDiv1: UInt8 = 0x10, accelSmplrtDiv2: UInt8 = 0x11, accelConfig: UInt8 = 0x14
    static let mpuWhoAmI: UInt8 = 0x75
}

private enum AK {
    static let wia1: UInt8 = 0x00, st1: UInt8 = 0x10, cntl2: UInt8 = 0x31, cntl3: UInt8 = 0x32
}

/// The ICM-20948 init sequence at 0x68 for the given dividers and field codes.
func icm20948Init(gyroDivider: UInt8 = 4, accelDivider: UInt16 = 4, dlpf: UInt8 = 3, gyroFS: UInt8 = 1, accelFS: UInt8 = 1) -> [I2CExpectation] {
    [
        .write(0x68, [0x7F, 0x00]),  // bank 0
        .writeRead(0x68, [0x00], reply: [0xEA]),  // WHO_AM_I
        .write(0x68, [0x06, 0x80]),  // DEVICE_RESET
        .writeRead(0x68, [0x06], reply: [0]).failing(.noAcknowledge),  // busy resetting
        .writeRead(0x68, [0x06], reply: [0x41]),  // reset done, asleep
        .write(0x68, [0x06, 0x01]),  // wake, auto clock
        .write(0x68, [0x03, 0x00]),  // USER_CTRL: I2C master off
        .write(0x68, [0x0F, 0x02]),  // INT_PIN_CFG BYPASS_EN
        .write(0x68, [0x7F, 0x20]),  // bank 2
        .write(0x68, [0x00, gyroDivider]),
        .write(0x68, [0x01, dlpf << 3 | gyroFS << 1 | 1]),  // GYRO_CONFIG_1, FCHOICE
        .write(0x68, [0x10, UInt8(accelDivider >> 8)]),
        .write(0x68, [0x11, UInt8(accelDivider & 0xFF)]),
        .write(0x68, [0x14, dlpf << 3 | accelFS << 1 | 1]),  // ACCEL_CONFIG, FCHOICE
        .write(0x68, [0x7F, 0x00]),  // back to bank 0
    ]
}

@Suite struct ICM20948Tests {
    /// Default: 220 Hz (gyro 1100/5, accel 1125/5 = 225 Hz), ±4 g, ±500 °/s, 51.2 Hz DLPF; one
    /// burst of ACCEL, GYRO, TEMP.
    @Test func defaultInitAndSample() throws {
        let bus = ExpectationBus(icm20948Init())
        let imu = ICM20948IMU(bus: bus, pause: .none)
        try imu.configure(imu.defaultConfiguration)
        // Face up at rest: +1 g on z = 8192 LSB at ±4 g; x gyro 10 °/s = 655 LSB at ±500 °/s;
        // temperature raw 3339 → 31.0 °C (raw / 333.87 + 21).
        bus.expect([.writeRead(0x68, [ICM.accelXoutH], reply: bigEndian([0, 0, 8192, 655, 0, -655, 3339]))])
        let sample = try imu.readSample()
        #expect(close(sample.acceleration, [0, 0, -1]))
        #expect(close(sample.rotationRate, [10 * degree, 0, -10 * degree], tolerance: 1e-3))
        #expect(close(sample.temperature ?? 0, 3339 / 333.87 + 21))
        #expect(!sample.isSaturated)
        expectFinished(bus)
    }
}
