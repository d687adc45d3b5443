import I2C

extension ChipInfo.Family {
    package static let mmc5983ma = Self(rawValue: "MEMSIC MMC5983MA")
}

/// The MMC5983MA's registers (MEMSIC MMC5983MA datasheet Rev. A, "Register Map" and "Register
/// Details"; the same in drivers/iio/magnetometer/mmc5983.c). The driver never reads the four
/// internal control registers back (the datasheet's map marks them write-only).
enum MMC5983MARegister {
    /// Xout0 (X[17:10]), Xout1 (X[9:2]), Yout0, Yout1, Zout0, Zout1, XYZout2 (X[1:0] 7:6, Y[1:0]
    /// 5:4, Z[1:0] 3:2): 0x00–0x06.
    static let xOut0: UInt8 = 0x00
    static let outputCount = 7
    /// Status: Meas_M_Done (bit 0), Meas_T_Done (1), OTP_Read_Done (4).
    static let status: UInt8 = 0x08
    static let measurementDone: UInt8 = 0x01
    /// Internal Control 0: TM_M (bit 0) starts a field measurement, TM_T (1) a temperature one,
    /// Set (3) and Reset (4) send the SET and RESET current pulses.
    static let control0: UInt8 = 0x09
    static let takeMeasurement: UInt8 = 0x01
    static let set: UInt8 = 0x08
    static let reset: UInt8 = 0x10
    /// Internal Control 1: BW (1:0: 00 100 Hz, 8 ms a measurement … 11 800 Hz, 0.5 ms), SW_RST (7).
    static let control1: UInt8 = 0x0A
    static let softwareReset: UInt8 = 0x80
    /// Product ID 1: 0x30.
    static let productID: UInt8 = 0x2F

    /// The null-field output of the 18-bit offset-binary counts (2¹⁷).
    static let nullField = 131_072
    /// 18-bit full scale.
    static let maximumCount = 262_143
    /// 16384 counts per gauss in 18-bit mode ("Electrical characteristics": sensitivity, ±8 G
    /// range): 163.84 counts/µT.
    static let countsPerMicrotesla = 163.84
    /// The datasheet's power-on time, which SW_RST repeats ("similar to power-up", 10 ms).
    static let resetTime = Duration.milliseconds(10)
    /// One measurement at BW 00: 8 ms.
    static let measurementTime = Duration.milliseconds(8)
}

/// What the driver keeps under its lock: the configuration, and the SET/RESET pipeline (each
/// measurement follows a SET or a RESET pulse, alternately; the field is half their difference).
struct MMC5983MAState: DriverState {
    var configuration: MagnetometerConfiguration
    let shadow = ShadowRegisters([:])
    /// The last finished measurement after a SET pulse and after a RESET pulse (18-bit counts).
    var afterSet: SIMD3<Int32>?
    var afterReset: SIMD3<Int32>?
    /// The pulse before the measurement under way.
    var pendingIsSet = true
}

/// Driver for the MEMSIC MMC5983MA magnetometer (0x30), offset-free by SET/RESET.
///
/// An AMR bridge reads +S·H + offset after a SET pulse and −S·H + offset after a RESET pulse
/// (datasheet, "SET/RESET"): half their difference is the field with the bridge offset (and its
/// temperature drift) removed. The driver measures on command (TM_M), each measurement after a SET
/// or a RESET pulse in turn, and gives half the difference of the latest of each: a reading is at
/// most two measurements old. ``configure(_:)`` takes one of each before it returns, so the first
/// sample is offset-free too; a read that finds the measurement under way unfinished gives the
/// last reading again.
///
/// ``isStillConfigured()`` reads the product ID: the control registers are write-only, and every
/// measurement is commanded with its own pulse, so a chip that reset itself loses nothing the
/// driver relies on.
package final class MMC5983MAMagnetometer: MagnetometerDriver, BusPlacedDriver {
    /// 100 Hz, ±8 gauss (the only range).
    package let defaultConfiguration = MagnetometerConfiguration(outputDataRate: 100, range: 800)
    let core: DriverCore<MagnetometerSettings, MMC5983MAState>

    /// Rates the sampler may read it at: each read commands the next measurement (8 ms at BW
    /// 00), so up to 100 Hz; ±8 gauss (800 µT) in 18 bits.
    static let settings = MagnetometerSettings(
        name: "MMC5983MA", family: .mmc5983ma, identityRegister: MMC5983MARegister.productID, identity: [0x30],
        outputDataRates: [SettingOption(value: 50, code: 0), SettingOption(value: 100, code: 0)],
        ranges: [SettingOption(value: 800, code: 0, sensitivity: MMC5983MARegister.countsPerMicrotesla)],
        softReset: nil, configurationRegister: MMC5983MARegister.productID,
        outputRegister: MMC5983MARegister.xOut0, outputCount: MMC5983MARegister.outputCount)

    package init(bus: any I2CBus, address: I2CAddress, pause: Pause, resetCompletion: ResetCompletion) {
        core = DriverCore(
            bus: bus, address: address, chip: Self.settings.name, .mmc5983ma, identity: Self.settings.identity, settings: Self.settings,
            pause: pause, resetCompletion: resetCompletion, state: MMC5983MAState(configuration: defaultConfiguration))
    }

    package var chip: ChipInfo { core.chip }
    package var configuration: MagnetometerConfiguration { core.configuration }
    var device: RegisterDevice { core.device }

    /// Product ID; SW_RST and the power-on time; BW 00; then one measurement after a SET pulse
    /// and one after a RESET pulse (the first offset-free reading), and the next, after a SET,
    /// started.
    package func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        try core.locked { state throws(SensorError) in
            _ = try Self.settings.rate(configuration)
            _ = try Self.settings.range(configuration)
            try device.checkIdentity(MMC5983MARegister.productID, expected: Self.settings.identity, chip: chip.name)
            try device.write(MMC5983MARegister.control1, MMC5983MARegister.softwareReset)
            core.pause.wait(MMC5983MARegister.resetTime)
            try device.write(MMC5983MARegister.control1, 0x00)  // BW 00
            state = MMC5983MAState(configuration: configuration)
            for isSet in [true, false] {
                try start(isSet: isSet, &state)
                try waitForMeasurement()
                try take(&state)
            }
            try start(isSet: true, &state)
        }
    }

    /// The pulse, then TM_M.
    private func start(isSet: Bool, _ state: inout MMC5983MAState) throws(SensorError) {
        try device.write(MMC5983MARegister.control0, isSet ? MMC5983MARegister.set : MMC5983MARegister.reset)
        try device.write(MMC5983MARegister.control0, MMC5983MARegister.takeMeasurement)
        state.pendingIsSet = isSet
    }

    /// Polls Meas_M_Done, the measurement time apart, up to 5 times.
    private func waitForMeasurement() throws(SensorError) {
        for _ in 0..<5 {
            core.pause.wait(MMC5983MARegister.measurementTime)
            if try device.read(MMC5983MARegister.status) & MMC5983MARegister.measurementDone != 0 { return }
        }
        throw .dataTimeout(chip: chip.name, address: device.address, polls: 5)
    }

    /// Reads the finished measurement into the SET or RESET slot it belongs to.
    private func take(_ state: inout MMC5983MAState) throws(SensorError) {
        let counts = try device.burst(MMC5983MARegister.xOut0, count: MMC5983MARegister.outputCount) { bytes in
            Self.counts(bytes)
        }
        if state.pendingIsSet { state.afterSet = counts } else { state.afterReset = counts }
    }

    /// The 18-bit counts: bits 17:10, 9:2 and, in XYZout2, 1:0 of each axis.
    static func counts(_ bytes: UnsafeRawBufferPointer) -> SIMD3<Int32> {
        let low = Int32(bytes[6])
        return SIMD3(
            Int32(bytes[0]) << 10 | Int32(bytes[1]) << 2 | (low >> 6) & 0x3,
            Int32(bytes[2]) << 10 | Int32(bytes[3]) << 2 | (low >> 4) & 0x3,
            Int32(bytes[4]) << 10 | Int32(bytes[5]) << 2 | (low >> 2) & 0x3)
    }

    /// Status; when the measurement under way has finished, its counts, and the next measurement
    /// started after the other pulse. The field: (after SET − after RESET) / 2.
    package func readSample() throws(SensorError) -> MagneticSample {
        try core.locked { state throws(SensorError) -> MagneticSample in
            if try device.read(MMC5983MARegister.status) & MMC5983MARegister.measurementDone != 0 {
                try take(&state)
                try start(isSet: !state.pendingIsSet, &state)
            }
            guard let set = state.afterSet, let reset = state.afterReset else {
                throw .notSupported(chip: chip.name, feature: "reading before configure(_:)")
            }
            return Self.sample(afterSet: set, afterReset: reset)
        }
    }

    /// Half the difference of the two measurements, in µT; saturated when either reached an end
    /// of the 18-bit range. `raw` carries that half difference at 16-bit resolution (40.96 counts/µT).
    static func sample(afterSet set: SIMD3<Int32>, afterReset reset: SIMD3<Int32>) -> MagneticSample {
        let half = SIMD3<Double>(Double(set.x - reset.x), Double(set.y - reset.y), Double(set.z - reset.z)) / 2
        let top = Int32(MMC5983MARegister.maximumCount)
        let ends = (0..<3).contains { set[$0] <= 0 || set[$0] >= top || reset[$0] <= 0 || reset[$0] >= top }
        let sixteenBit = SIMD3<Int16>(
            Int16(clamping: Int((half.x / 4).rounded())), Int16(clamping: Int((half.y / 4).rounded())), Int16(clamping: Int((half.z / 4).rounded())))
        return MagneticSample(
            field: half / MMC5983MARegister.countsPerMicrotesla, isSaturated: ends,
            raw: RawMagneticReading(counts: sixteenBit, lsbPerMicrotesla: SIMD3(repeating: MMC5983MARegister.countsPerMicrotesla / 4)))
    }

    /// Whether the chip still answers as an MMC5983MA: its control registers are write-only, and
    /// it keeps no configuration the driver relies on between commanded measurements.
    package func isStillConfigured() throws(SensorError) -> Bool {
        try device.read(MMC5983MARegister.productID) == Self.settings.identity[0]
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test (not in this driver: the chip's St_enp/St_enm coils are not driven)")
    }
}
