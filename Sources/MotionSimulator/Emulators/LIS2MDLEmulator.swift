/// Register model of the ST LIS2MDL magnetometer (datasheet DS12144: §6.1 I2C operation,
/// §7 register mapping, §8 register description, Table 2 magnetic characteristics).
struct LIS2MDLChip: STMagnetometerChip, NamedChip {
    static let chipName = "LIS2MDL"
    static let offsetXL: UInt8 = 0x45   // OFFSET_X_REG_L … OFFSET_Z_REG_H: 0x45–0x4A (hard-iron)
    static let whoAmI: UInt8 = 0x4F
    static let cfgRegA: UInt8 = 0x60    // COMP_TEMP_EN[7] REBOOT[6] SOFT_RST[5] LP[4] ODR[3:2] MD[1:0]
    static let cfgRegB: UInt8 = 0x61
    static let cfgRegC: UInt8 = 0x62    // BDU[4] BLE[3] Self_test[1]
    static let intCtrlReg: UInt8 = 0x63
    static let intSource: UInt8 = 0x64
    static let statusReg: UInt8 = 0x67  // Zyxor[7] … Zyxda[3] …
    static let outXL: UInt8 = 0x68      // OUTX_L … OUTZ_H: 0x68–0x6D
    static let tempOutL: UInt8 = 0x6E
    static let modeRegister = cfgRegA
    static let resetRegister = cfgRegA
    static let softResetBit: UInt8 = 0x20
    static let rebootBit: UInt8 = 0x40

    /// ODR[1:0] → Hz.
    static let rates: [Double] = [10, 20, 50, 100]
    /// Fixed sensitivity: 1.5 mgauss/LSB (±50 gauss).
    static let gaussPerLSB = 0.0015
    /// Self-test field, gauss: the limits are 15–500 mgauss per axis.
    static let selfTestField = SIMD3(repeating: 0.2)

    var core: ChipCore

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [
            Self.whoAmI: 0x40,
            Self.cfgRegA: 0x03,  // idle
            Self.intCtrlReg: 0xE0,
        ])
    }

    var rate: Double { Self.rates[Int((reg(Self.cfgRegA) >> 2) & 0b11)] }

    private var hardIronOffset: SIMD3<Double> {
        SIMD3(perAxis: { axis in
            let low = UInt16(reg(Self.offsetXL + UInt8(axis * 2))), high = UInt16(reg(Self.offsetXL + UInt8(axis * 2 + 1)))
            return Double(Int16(bitPattern: high << 8 | low))
        })
    }

    mutating func measure(_ state: PhysicalState) {
        let selfTest = reg(Self.cfgRegC) & 0b10 != 0 ? Self.selfTestField : .zero
        let gauss = sensed(state.magneticField / Encoding.microteslaPerGauss + selfTest)
        // The hard-iron offset registers are subtracted from the measurement, in output LSB.
        let lsb = gauss / Self.gaussPerLSB - hardIronOffset
        let counts = Encoding.counts(lsb, perLSB: 1)
        let temperature = Encoding.int16((state.temperature - 25) * 8)  // 8 LSB/°C, 0 at 25 °C
        let bigEndian = reg(Self.cfgRegC) & 0b1000 != 0                 // BLE
        let bytes = bigEndian
            ? Encoding.bigEndian(counts) + Encoding.bigEndian(temperature)
            : Encoding.littleEndian(counts) + Encoding.littleEndian(temperature)
        store(bytes, at: Self.outXL)
    }

    /// I2C reads and writes always advance the address.
    func pointer(after register: UInt8) -> UInt8 { (register + 1) & 0x7F }
}

/// ST LIS2MDL magnetometer emulator (WHO_AM_I 0x4F = 0x40), at 0x1E.
///
/// Fixed ±50 gauss range at 1.5 mgauss/LSB; continuous (10/20/50/100 Hz), single and idle
/// modes (CFG_REG_A MD); hard-iron offset registers subtracted from the output; self-test
/// (CFG_REG_C); BLE; soft reset (CFG_REG_A SOFT_RST); the address always auto-increments.
package final class LIS2MDLEmulator: ModelEmulator {
    let engine: EmulatorEngine<LIS2MDLChip>
    init(engine: EmulatorEngine<LIS2MDLChip>) { self.engine = engine }
}

extension SimulatedBoard.Magnetometer {
    /// the ST LIS2MDL.
    public static let lis2mdl = Self("lis2mdl")
}
