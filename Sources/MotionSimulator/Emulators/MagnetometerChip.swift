/// What every magnetometer model has: the source of the field it senses and the options that
/// may kill its axes (both in its ``ChipCore``).
protocol MagnetometerChip: SingleModelChip {}

extension MagnetometerChip {
    /// What the sensing elements see of `value` (a field, plus any self-test field): the dead
    /// axes read 0.
    func sensed(_ value: SIMD3<Double>) -> SIMD3<Double> {
        Encoding.masking(value, deadAxes: options.deadAxes, SensorAxis.magnetometer)
    }
}

/// The measurement cycle the AKM magnetometers share (AK8963 datasheet §6.4.3; AK09916 in
/// DS-000189 §13.2): in a continuous mode each tick of the chip's clock measures into HXL…HZH and
/// sets ST1 DRDY (DOR too when DRDY was still set); reading HXL…ST2 clears both; a read of the
/// measurement data protects it from the next measurements (skipped, DOR) until ST2 is read.
protocol AKMagnetometerChip: MagnetometerChip {
    static var st1: UInt8 { get }
    static var hxl: UInt8 { get }
    static var st2: UInt8 { get }
    /// A measurement data register was read and ST2 not yet.
    var readInProgress: Bool { get set }
    /// The measurement rate of the current mode, Hz; nil when not measuring continuously.
    var continuousRate: Double? { get }
    /// Latches one measurement of `field` (µT, chip axes) into the output and status registers.
    mutating func measure(_ field: SIMD3<Double>)
}

extension AKMagnetometerChip {
    mutating func advance(to time: Double) {
        guard continuousRate != nil, clock.advance(to: time) > 0 else { return }
        guard !readInProgress else {
            registers[Int(Self.st1)] |= 0x02  // this measurement is skipped: DOR
            return
        }
        measure(source.state(at: time).magneticField)
    }

    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if (Self.hxl...Self.st2).contains(register) { registers[Int(Self.st1)] = 0 }
        if (Self.hxl..<Self.st2).contains(register) { readInProgress = true }
        if register == Self.st2 { readInProgress = false }
        return value
    }
}

/// The operating modes and status flags the ST magnetometers share (register descriptions:
/// LIS2MDL DS12144 §8, CFG_REG_A and STATUS_REG; LIS3MDL DocID024204 §7, CTRL_REG2, CTRL_REG3
/// and STATUS_REG).
///
/// MD[1:0] = 00 samples continuously at the output data rate, 01 takes one measurement and
/// returns to idle (11), 1x is idle. STATUS_REG bits 3…0 (ZYXDA, ZDA, YDA, XDA) flag new data,
/// bits 7…4 (ZYXOR, ZOR, YOR, XOR) new data that overwrote unread data; reading an output
/// register clears the status. SOFT_RST resets every register and REBOOT clears itself at once
/// (the emulator has no trimming memory to reload); WHO_AM_I, INT_SOURCE, STATUS_REG and the
/// outputs are read-only.
protocol STMagnetometerChip: MagnetometerChip {
    static var whoAmI: UInt8 { get }
    static var intSource: UInt8 { get }
    static var statusReg: UInt8 { get }
    /// The first output register (OUTX_L); the six output registers follow it.
    static var outXL: UInt8 { get }
    /// TEMP_OUT_L; TEMP_OUT_H follows it.
    static var tempOutL: UInt8 { get }
    /// The configuration register whose bits 1:0 are MD.
    static var modeRegister: UInt8 { get }
    /// The configuration register holding SOFT_RST and REBOOT, and their bits.
    static var resetRegister: UInt8 { get }
    static var softResetBit: UInt8 { get }
    static var rebootBit: UInt8 { get }
    /// The output data rate in continuous mode, Hz.
    var rate: Double { get }
    /// Latches one measurement of `state` into the output registers.
    mutating func measure(_ state: PhysicalState)
}

extension STMagnetometerChip {
    /// MD: 00 continuous, 01 single, 1x idle.
    var mode: UInt8 { reg(Self.modeRegister) & 0b11 }

    mutating func flagNewData() { flagNewData(in: Self.statusReg, ready: 0x0F, overrun: 0xF0) }

    mutating func advance(to time: Double) {
        guard mode == 0b00 else { return }
        if clock.advance(to: time) > 0 { flagNewData() }
        measure(source.state(at: time))
    }

    func peek(_ register: UInt8) -> UInt8 { registers[Int(register & 0x7F)] }

    mutating func read(_ register: UInt8) -> UInt8 {
        let value = peek(register)
        if (Self.outXL...(Self.outXL + 5)).contains(register & 0x7F) { registers[Int(Self.statusReg)] = 0 }
        return value
    }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        switch address {
        case Self.whoAmI, Self.intSource, Self.statusReg, Self.outXL...(Self.tempOutL + 1):
            return  // read-only
        case Self.resetRegister where value & Self.softResetBit != 0:
            powerOnReset()  // the bit clears itself
            return
        case Self.resetRegister:
            registers[Int(address)] = value & ~Self.rebootBit
        default:
            registers[Int(address)] = value
        }
        // A single measurement returns to idle; the output data rate clock runs only in
        // continuous mode.
        if mode == 0b01 {
            measure(source.state(at: time))
            flagNewData()
            registers[Int(Self.modeRegister)] |= 0b11
        }
        clock.set(rate: mode == 0b00 ? rate : nil, at: time)
    }
}
