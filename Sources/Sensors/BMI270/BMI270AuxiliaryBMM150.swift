import I2C
import Locking

/// The auxiliary-interface registers of the BMI270 (BST-BMI270-DS000 register map; Bosch's
/// BMI270 SensorAPI bmi2_defs.h BMI2_AUX_*).
enum BMI270AuxiliaryRegister {
    /// DATA_0 … DATA_7: the bytes read from the auxiliary device.
    static let data: UInt8 = 0x04
    /// STATUS aux_man_op (bit 2): a manual-mode transfer is under way (BMI2_AUX_BUSY_MASK 0x04).
    static let status: UInt8 = 0x03
    static let busy: UInt8 = 0x04
    /// AUX_CONF: aux_odr bits 3:0, the rate data mode reads at: 100 / 2^(8 − code) Hz.
    static let configuration: UInt8 = 0x44
    /// AUX_DEV_ID: the auxiliary device's 7-bit address in bits 7:1 (BMI2_AUX_SET_I2C_ADDR_MASK 0xFE).
    static let deviceID: UInt8 = 0x4B
    /// AUX_IF_CONF: aux_manual_en bit 7, man_rd_burst bits 3:2, aux_rd_burst bits 1:0 (0…3 = 1, 2,
    /// 6, 8 bytes) (BMI2_AUX_MAN_MODE_EN_MASK 0x80, BMI2_AUX_MAN_READ_BURST_MASK 0x0C, BMI2_AUX_READ_BURST_MASK 0x03).
    static let interfaceConfiguration: UInt8 = 0x4C
    /// AUX_RD_ADDR: in manual mode writing it reads from that register; in data mode, where the reads start.
    static let readAddress: UInt8 = 0x4D
    /// AUX_WR_ADDR, AUX_WR_DATA: in manual mode writing the address writes the data there.
    static let writeAddress: UInt8 = 0x4E
    static let writeData: UInt8 = 0x4F
    /// IF_CONF: aux_en bit 5 (BMI2_AUX_IF_EN_MASK 0x20).
    static let interface: UInt8 = 0x6B
    static let interfaceOn: UInt8 = 0x20
    /// PWR_CTRL aux_en bit 0.
    static let powerOn: UInt8 = 0x01

    /// Manual mode with 8-byte reads; data mode with 8-byte reads.
    static let manualEightBytes: UInt8 = 0x80 | 0b11 << 2
    static let dataEightBytes: UInt8 = 0b11
    /// aux_odr 0x07: 50 Hz, above every rate the BMM150 runs at here.
    static let fiftyHertz: UInt8 = 0x07
    /// Where a BMM150 with SDO and CSB2 low answers, the usual on an auxiliary bus.
    static let bmm150Address: UInt8 = 0x10
}

/// The register side of the BMI270's auxiliary interface in manual mode: writes and reads of the
/// device behind it, each waited out (aux_man_op, 10 polls 1 ms apart).
struct BMI270AuxiliaryBus: Sendable {
    let device: RegisterDevice
    let pause: Pause

    func write(_ register: UInt8, _ value: UInt8) throws(SensorError) {
        try device.write(BMI270AuxiliaryRegister.writeData, value)
        try device.write(BMI270AuxiliaryRegister.writeAddress, register)
        try waitIdle()
    }

    /// `count` bytes (at most 8) from `register` on, read as one 8-byte manual burst.
    func read(_ register: UInt8, count: Int) throws(SensorError) -> [UInt8] {
        try device.write(BMI270AuxiliaryRegister.readAddress, register)
        try waitIdle()
        return Array(try device.read(BMI270AuxiliaryRegister.data, count: 8).prefix(count))
    }

    private func waitIdle() throws(SensorError) {
        for _ in 0..<10 {
            if try device.read(BMI270AuxiliaryRegister.status) & BMI270AuxiliaryRegister.busy == 0 { return }
            pause.wait(.milliseconds(1))
        }
        throw .dataTimeout(chip: "BMI270 auxiliary interface", address: device.address, polls: 10)
    }
}

/// A BMM150 on the BMI270's auxiliary interface, read through the BMI270's registers: the BMI270
/// driver's ``IMUDriver/companionMagnetometer`` when its ``BMI270IMU/configure(_:)`` finds one at
/// 0x10 of the auxiliary bus. Configured in manual mode as ``BMM150Magnetometer`` configures a
/// BMM150 on the host bus (soft reset, the trim read once, Bosch's regular repetitions, normal mode
/// at the rate asked); then the BMI270 reads its data registers on its own (data mode, 8 bytes
/// from 0x42 at 50 Hz) into DATA_0 … DATA_7, which a sample reads and compensates.
package final class BMI270AuxiliaryBMM150: MagnetometerDriver {
    package let chip: ChipInfo
    /// 30 Hz, ±1300 µT.
    package let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 30, range: 1300)
    private let auxiliary: BMI270AuxiliaryBus
    private let state: Locked<(configuration: MagnetometerConfiguration, trim: BMM150Trim?)>

    init(device: RegisterDevice, pause: Pause) {
        auxiliary = BMI270AuxiliaryBus(device: device, pause: pause)
        chip = BMM150Settings.table.chip(at: device.address)
        state = Locked((defaultConfiguration, nil))
    }

    package var configuration: MagnetometerConfiguration { state.withLock { $0.configuration } }

    /// Whether a BMM150 answers behind the interface: its power bit set, 3 ms, then CHIP_ID read.
    static func answers(_ auxiliary: BMI270AuxiliaryBus) throws(SensorError) -> Bool {
        try auxiliary.write(BMM150Register.power, BMM150Register.powerOn)
        auxiliary.pause.wait(BMM150Settings.wakeUp.settle)
        return try auxiliary.read(BMM150Register.chipID, count: 1) == [BMM150Settings.identity]
    }

    package func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        let rate = try BMM150Settings.table.rate(configuration)
        _ = try BMM150Settings.table.range(configuration)
        let device = auxiliary.device
        try device.write(BMI270AuxiliaryRegister.interfaceConfiguration, BMI270AuxiliaryRegister.manualEightBytes)
        try auxiliary.write(BMM150Register.power, BMM150Register.powerOn)
        auxiliary.pause.wait(BMM150Settings.wakeUp.settle)
        let identity = try auxiliary.read(BMM150Register.chipID, count: 1)
        guard identity == [BMM150Settings.identity] else {
            throw .unexpectedIdentity(chip: chip.name, address: device.address, register: BMM150Register.chipID,
                                      expected: [BMM150Settings.identity], found: identity)
        }
        try auxiliary.write(BMM150Register.power, BMM150Register.softReset)
        auxiliary.pause.wait(BMM150Settings.wakeUp.settle)
        var trimBytes: [UInt8] = []
        for start in stride(from: Int(BMM150Trim.firstRegister), to: Int(BMM150Trim.firstRegister) + BMM150Trim.burstLength, by: 8) {
            trimBytes += try auxiliary.read(UInt8(start), count: min(8, Int(BMM150Trim.firstRegister) + BMM150Trim.burstLength - start))
        }
        let trim = BMM150Trim(registers: trimBytes)
        try auxiliary.write(BMM150Register.repetitionsXY, BMM150Register.regularXY)
        try auxiliary.write(BMM150Register.repetitionsZ, BMM150Register.regularZ)
        try auxiliary.write(BMM150Register.operation, rate.code << 3)  // opmode 00: normal
        try device.write(BMI270AuxiliaryRegister.readAddress, BMM150Register.data)
        try device.write(BMI270AuxiliaryRegister.configuration, BMI270AuxiliaryRegister.fiftyHertz)
        try device.write(BMI270AuxiliaryRegister.interfaceConfiguration, BMI270AuxiliaryRegister.dataEightBytes)
        state.withLock { $0 = (configuration, trim) }
    }

    /// DATA_0 … DATA_7 in one burst, compensated (``BMM150Magnetometer``'s decoding).
    package func readSample() throws(SensorError) -> MagneticSample {
        guard let trim = state.withLock({ $0.trim }) else {
            throw .notSupported(chip: chip.name, feature: "sample before configure (its trim is read there)")
        }
        return try auxiliary.device.burst(BMI270AuxiliaryRegister.data, count: BMM150Register.dataLength) { bytes in
            BMM150Magnetometer.sample(
                raw: SIMD3(int16LE(bytes, 0) >> 3, int16LE(bytes, 2) >> 3, int16LE(bytes, 4) >> 1),
                rhall: UInt16(bytes[6]) >> 2 | UInt16(bytes[7]) << 6, trim: trim)
        }
    }

    /// AUX_IF_CONF still in data mode with 8-byte reads (a reset of the BMI270 sets it to 0x83).
    package func isStillConfigured() throws(SensorError) -> Bool {
        try auxiliary.device.read(BMI270AuxiliaryRegister.interfaceConfiguration) == BMI270AuxiliaryRegister.dataEightBytes
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test in this driver")
    }
}
