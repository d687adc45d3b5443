/// Register model of the MEMSIC MMC5983MA magnetometer, from its datasheet (Rev. A: "Register
/// Map", "Register Details", "SET/RESET", electrical characteristics).
///
/// The AMR bridge reads +S·H + offset after a SET pulse and −S·H + offset after a RESET pulse.
/// The offset is this model's: the datasheet gives no figure per part, only the SET/RESET that
/// cancels it, so the emulated part carries ``bridgeOffset`` at 25 °C drifting by
/// ``bridgeOffsetDrift`` per °C of the source's temperature; a driver that does not take SET and
/// RESET differences reads it. Before its first SET or RESET pulse after power-up the bridge's
/// magnetisation is undefined: the model then senses no field (the offset alone), which is why
/// the part needs a SET after power-up.
struct MMC5983MAChip: MagnetometerChip, NamedChip {
    static let chipName = "MMC5983MA"
    static let xOut0: UInt8 = 0x00        // X[17:10], X[9:2], Y…, Z…: 0x00–0x05
    static let xyzOut2: UInt8 = 0x06      // X[1:0] 7:6, Y[1:0] 5:4, Z[1:0] 3:2
    static let tOut: UInt8 = 0x07         // −75 °C at 0, about 0.8 °C/LSB
    static let status: UInt8 = 0x08       // OTP_Read_Done 4, Meas_T_Done 1, Meas_M_Done 0
    static let control0: UInt8 = 0x09     // (write-only) OTP_Read 6, Auto_SR_en 5, Reset 4, Set 3, INT_meas_done_en 2, TM_T 1, TM_M 0
    static let control1: UInt8 = 0x0A     // (write-only) SW_RST 7, YZ-inhibit 4:3, X-inhibit 2, BW 1:0
    static let control2: UInt8 = 0x0B     // (write-only) En_prd_set 7, Prd_set 6:4, Cmm_en 3, CM_Freq 2:0
    static let control3: UInt8 = 0x0C     // (write-only) Spi_3w 6, St_enm 2, St_enp 1
    static let productID: UInt8 = 0x2F    // 0x30

    /// 16384 counts per gauss in 18 bits; null field at 2¹⁷ (offset binary), ±8 gauss.
    static let countsPerGauss = 16384.0
    static let nullField = 131_072.0
    /// This model's bridge offset at 25 °C (gauss, x y z) and its drift (gauss/°C): see above.
    static let bridgeOffset = SIMD3(0.25, -0.18, 0.4)
    static let bridgeOffsetDrift = SIMD3(0.004, -0.003, 0.005)

    /// Magnetisation after the last pulse: +1 after SET, −1 after RESET, 0 before any.
    var magnetisation = 0.0
    var core: ChipCore

    init(core: ChipCore) { self.core = core }

    mutating func powerOnReset() {
        core.powerOn(registerCount: 0x30, presets: [Self.productID: 0x30, Self.status: 0x10])  // OTP read done
        magnetisation = 0
    }

    /// Measurements happen on command (``write(_:to:at:)``): nothing runs on the chip's clock.
    mutating func advance(to time: Double) {}

    /// The bridge's output after the last pulse, 18-bit offset binary, into Xout0…XYZout2; Meas_M_Done.
    private mutating func measureField(_ state: PhysicalState) {
        let gauss = sensed(state.magneticField / Encoding.microteslaPerGauss)
        let offset = Self.bridgeOffset + Self.bridgeOffsetDrift * (state.temperature - 25)
        let output = magnetisation * gauss + offset
        let scaled = (SIMD3(repeating: Self.nullField) + output * Self.countsPerGauss).rounded(.toNearestOrAwayFromZero)
        let counts = SIMD3<Int>(
            Int(max(0, min(262_143, scaled.x))), Int(max(0, min(262_143, scaled.y))), Int(max(0, min(262_143, scaled.z))))
        var low: UInt8 = 0
        for axis in 0..<3 {
            registers[Int(Self.xOut0) + 2 * axis] = UInt8(truncatingIfNeeded: counts[axis] >> 10)
            registers[Int(Self.xOut0) + 2 * axis + 1] = UInt8(truncatingIfNeeded: counts[axis] >> 2)
            low |= UInt8(counts[axis] & 0x3) << UInt8(6 - 2 * axis)
        }
        registers[Int(Self.xyzOut2)] = low
        registers[Int(Self.status)] |= 0x01
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        switch register {
        case Self.control0:
            if value & 0x08 != 0 { magnetisation = 1 }   // SET
            if value & 0x10 != 0 { magnetisation = -1 }  // RESET
            // TM_M, TM_T: measured at once, at the command's time (the BW's 0.5…8 ms measurement
            // time is not modelled, as the AK8975's single measurement is not).
            if value & 0x01 != 0 { measureField(source.state(at: time)) }
            if value & 0x02 != 0 {
                registers[Int(Self.tOut)] = UInt8(max(0, min(255, ((source.state(at: time).temperature + 75) / 0.8).rounded())))
                registers[Int(Self.status)] |= 0x02
            }
        case Self.control1:
            if value & 0x80 != 0 { powerOnReset() }  // SW_RST: as at power-up; BW only sets the (unmodelled) measurement time
        default:
            return  // read-only, or a write-only mode this model does not run (continuous mode, self-test coils)
        }
    }

    /// The control registers are write-only: they read 0 here. Reading a field output register
    /// clears Meas_M_Done ("Status": reset when the magnetic data registers are read).
    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if register <= Self.xyzOut2 { registers[Int(Self.status)] &= ~0x01 }
        return value
    }

    func peek(_ register: UInt8) -> UInt8 { Int(register) < registers.count ? registers[Int(register)] : 0 }

    /// Multiple-byte reads advance the register address.
    func pointer(after register: UInt8) -> UInt8 { (register + 1) & 0x3F }
}

/// MEMSIC MMC5983MA magnetometer emulator (Product ID 1, 0x2F = 0x30), at 0x30.
///
/// Measures on command (Internal Control 0 TM_M, TM_T; at once, the measurement time not modelled), 18-bit
/// offset-binary outputs with Meas_M_Done and Meas_T_Done; SET and RESET pulses flip the bridge's
/// magnetisation, which carries a bridge offset with a temperature drift (this model's figures);
/// SW_RST. Continuous mode, periodic SET and the self-test coils are not modelled.
package final class MMC5983MAEmulator: ModelEmulator {
    let engine: EmulatorEngine<MMC5983MAChip>
    init(engine: EmulatorEngine<MMC5983MAChip>) { self.engine = engine }
}

extension SimulatedBoard.Magnetometer {
    /// the MEMSIC MMC5983MA.
    public static let mmc5983ma = Self("mmc5983ma")
}
