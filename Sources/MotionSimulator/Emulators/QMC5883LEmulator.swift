/// Register model of the QST QMC5883L magnetometer (datasheet QMC5883L-Datasheet-1.0:
/// §9.1 register map, §9.2 register definition).
struct QMC5883LChip: MagnetometerChip, NamedChip {
    static let chipName = "QMC5883L"
    static let dataXL: UInt8 = 0x00     // X_L … Z_H: 0x00–0x05, little-endian
    static let status: UInt8 = 0x06     // DOR[2] OVL[1] DRDY[0]
    static let temperatureL: UInt8 = 0x07
    static let control1: UInt8 = 0x09   // OSR[7:6] RNG[5:4] ODR[3:2] MODE[1:0]
    static let control2: UInt8 = 0x0A   // SOFT_RST[7] ROL_PNT[6] INT_ENB[0]
    static let setResetPeriod: UInt8 = 0x0B
    static let chipID: UInt8 = 0x0D

    /// ODR → Hz.
    static let rates: [Double] = [10, 50, 100, 200]
    /// RNG → (full scale in gauss, LSB/gauss): ±2 gauss 12000, ±8 gauss 3000.
    static let ranges: [(fullScale: Double, lsbPerGauss: Double)] = [(2, 12000), (8, 3000)]

    var core: ChipCore

    mutating func powerOnReset() { core.powerOn(registerCount: 16, presets: [Self.chipID: 0xFF]) }

    var isContinuous: Bool { reg(Self.control1) & 0b11 == 0b01 }
    var rate: Double { Self.rates[Int((reg(Self.control1) >> 2) & 0b11)] }
    /// RNG codes 10 and 11 are reserved; they read as ±8 gauss here.
    var range: (fullScale: Double, lsbPerGauss: Double) { Self.ranges[(reg(Self.control1) >> 4) & 0b11 == 0 ? 0 : 1] }

    mutating func advance(to time: Double) {
        guard isContinuous else { return }
        if clock.advance(to: time) > 0 { flagNewData(in: Self.status, ready: 0x01, overrun: 0x04) }  // DRDY, DOR
        let state = source.state(at: time)
        let gauss = sensed(state.magneticField / Encoding.microteslaPerGauss)
        let (fullScale, lsbPerGauss) = range
        if abs(gauss.x) > fullScale || abs(gauss.y) > fullScale || abs(gauss.z) > fullScale {
            registers[Int(Self.status)] |= 0x02  // OVL
        } else {
            registers[Int(Self.status)] &= ~0x02
        }
        store(Encoding.littleEndian(Encoding.counts(gauss, perLSB: 1 / lsbPerGauss)), at: Self.dataXL)
        store(Encoding.littleEndian(Encoding.int16(state.temperature * 100)), at: Self.temperatureL)  // 100 LSB/°C
    }

    /// With ROL_PNT the pointer rolls over from the status register back to X_L; otherwise it
    /// advances through the map.
    func pointer(after register: UInt8) -> UInt8 {
        if reg(Self.control2) & 0x40 != 0, register == Self.status { return Self.dataXL }
        return register >= Self.chipID ? 0 : register + 1
    }

    func peek(_ register: UInt8) -> UInt8 { Int(register) < registers.count ? registers[Int(register)] : 0 }

    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        // DRDY and DOR reset when a data register is read.
        if register <= Self.dataXL + 5 { registers[Int(Self.status)] &= ~0x05 }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.control2 where value & 0x80 != 0:
            powerOnReset()  // SOFT_RST: every register to its default
        case Self.control1, Self.control2, Self.setResetPeriod:
            registers[Int(register)] = value
            clock.set(rate: isContinuous ? rate : nil, at: time)
        default:
            return  // read-only or reserved
        }
    }
}

/// QST QMC5883L magnetometer emulator (chip ID register 0x0D = 0xFF), at 0x0D.
///
/// Standby at power-on; continuous mode at 10/50/100/200 Hz; ±2/±8 gauss (12000/3000 LSB/gauss);
/// DRDY, OVL and DOR in the status register; pointer roll-over (CONTROL2 ROL_PNT); soft reset
/// (CONTROL2 SOFT_RST). The chip has no self-test and no FIFO.
package final class QMC5883LEmulator: ModelEmulator {
    let engine: EmulatorEngine<QMC5883LChip>
    init(engine: EmulatorEngine<QMC5883LChip>) { self.engine = engine }
}

extension SimulatedBoard.Magnetometer {
    /// the QST QMC5883L.
    public static let qmc5883l = Self("qmc5883l")
}
