/// Register model of the ST LIS3MDL magnetometer (datasheet DocID024204: §5.1.1 I2C operation,
/// §6 register mapping, §7 register description, Table 2 magnetic characteristics).
struct LIS3MDLChip: STMagnetometerChip, NamedChip {
    static let chipName = "LIS3MDL"
    static let whoAmI: UInt8 = 0x0F
    static let ctrlReg1: UInt8 = 0x20   // TEMP_EN[7] OM[6:5] DO[4:2] FAST_ODR[1] ST[0]
    static let ctrlReg2: UInt8 = 0x21   // FS[6:5] REBOOT[3] SOFT_RST[2]
    static let ctrlReg3: UInt8 = 0x22   // LP[5] SIM[2] MD[1:0]
    static let ctrlReg4: UInt8 = 0x23   // OMZ[3:2] BLE[1]
    static let ctrlReg5: UInt8 = 0x24   // FAST_READ[7] BDU[6]
    static let statusReg: UInt8 = 0x27  // ZYXOR[7] ZOR YOR XOR ZYXDA[3] ZDA YDA XDA
    static let outXL: UInt8 = 0x28      // X_L … Z_H: 0x28–0x2D
    static let tempOutL: UInt8 = 0x2E
    static let intCfg: UInt8 = 0x30
    static let intSource: UInt8 = 0x31  // INT_SRC
    static let modeRegister = ctrlReg3
    static let resetRegister = ctrlReg2
    static let softResetBit: UInt8 = 0b100
    static let rebootBit: UInt8 = 0b1000

    /// DO[2:0] → Hz (CTRL_REG1 table).
    static let rates: [Double] = [0.625, 1.25, 2.5, 5, 10, 20, 40, 80]
    /// FAST_ODR rate by OM (low-power, medium, high, ultra-high performance).
    static let fastRates: [Double] = [1000, 560, 300, 155]
    /// FS[1:0] → LSB/gauss for ±4/±8/±12/±16 gauss (Table 2).
    static let sensitivity: [Double] = [6842, 3421, 2281, 1711]
    /// Self-test field in gauss; limits at ±12 gauss (Table 2): X and Y 1–3, Z 0.1–1 gauss.
    /// Z is chosen so that the self-test output stays inside the Z window in an Earth field too
    /// (the AN4602 procedure compares the output with self-test on).
    static let selfTestField = SIMD3(1.5, 1.5, 0.6)

    var core: ChipCore
    /// Set by the MSB of the sub-address byte: only then does the pointer advance.
    var autoIncrement = false

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 128, presets: [
            Self.whoAmI: 0x3D,
            Self.ctrlReg1: 0x10,  // 10 Hz
            Self.ctrlReg3: 0x03,  // power-down
            Self.intCfg: 0xE8,
        ])
        autoIncrement = false
    }

    var rate: Double {
        let ctrl1 = reg(Self.ctrlReg1)
        if ctrl1 & 0b10 != 0 { return Self.fastRates[Int((ctrl1 >> 5) & 0b11)] }
        return Self.rates[Int((ctrl1 >> 2) & 0b111)]
    }

    var gaussPerLSB: Double { 1 / Self.sensitivity[Int((reg(Self.ctrlReg2) >> 5) & 0b11)] }

    mutating func setPointer(fromSubAddress byte: UInt8) {
        autoIncrement = byte & 0x80 != 0
        pointer = byte & 0x7F
    }

    func pointer(after register: UInt8) -> UInt8 {
        guard autoIncrement else { return register }
        // FAST_READ: only the high bytes of the output are read in sequence.
        if reg(Self.ctrlReg5) & 0x80 != 0, register == 0x29 || register == 0x2B { return register + 2 }
        return (register + 1) & 0x7F
    }

    /// Latches one measurement of `state` into the output registers.
    mutating func measure(_ state: PhysicalState) {
        let selfTest = reg(Self.ctrlReg1) & 0x01 != 0 ? Self.selfTestField : .zero
        let gauss = state.magneticField / Encoding.microteslaPerGauss + selfTest
        let counts = Encoding.counts(sensed(gauss), perLSB: gaussPerLSB)
        let bigEndian = reg(Self.ctrlReg4) & 0b10 != 0  // BLE
        store(bigEndian ? Encoding.bigEndian(counts) : Encoding.littleEndian(counts), at: Self.outXL)
        if reg(Self.ctrlReg1) & 0x80 != 0 {  // TEMP_EN: 8 LSB/°C, 0 at 25 °C
            let temperature = Encoding.int16((state.temperature - 25) * 8)
            store(bigEndian ? Encoding.bigEndian(temperature) : Encoding.littleEndian(temperature), at: Self.tempOutL)
        }
    }
}

/// ST LIS3MDL magnetometer emulator (WHO_AM_I 0x0F = 0x3D), usually at 0x1C or 0x1E.
///
/// Output follows `source` at `now()` in continuous mode (CTRL_REG3 MD = 00) and is latched by a
/// single conversion (MD = 01, which then returns to power-down); the pointer advances only when
/// the sub-address MSB is set (DocID024204 §5.1.1). Full scale ±4/8/12/16 gauss, self-test
/// (CTRL_REG1 ST), software reset (CTRL_REG2 SOFT_RST), big-endian option (CTRL_REG4 BLE),
/// FAST_READ, data-ready and overrun flags in STATUS_REG at the output data rate.
package final class LIS3MDLEmulator: ModelEmulator {
    let engine: EmulatorEngine<LIS3MDLChip>
    init(engine: EmulatorEngine<LIS3MDLChip>) { self.engine = engine }
}

extension SimulatedBoard.Magnetometer {
    /// the ST LIS3MDL.
    public static let lis3mdl = Self("lis3mdl")
}
