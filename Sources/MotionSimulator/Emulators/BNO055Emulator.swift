import Fusion

/// Register model of the Bosch BNO055, from its datasheet BST-BNO055-DS000: register map §4.2
/// (two pages chosen by PAGE_ID 0x07), operation modes §3.3, units §3.6, axis remap §3.4,
/// built-in self-test §3.9. Constants written here from the datasheet, independently of the driver.
///
/// `registers` holds page 0 then page 1 (page `p`, register `r` at `p·128 + r`).
struct BNO055Chip: RegisterChip {
    // Page 0
    static let chipID: UInt8 = 0x00          // 0xA0; ACC_ID 0x01 = 0xFB, MAG_ID 0x02 = 0x32, GYR_ID 0x03 = 0x0F
    static let swRevLSB: UInt8 = 0x04        // SW_REV_ID 0x04–0x05: 0x0311
    static let pageID: UInt8 = 0x07          // on both pages
    static let accDataXL: UInt8 = 0x08       // ACC 0x08–0x0D, MAG 0x0E–0x13, GYR 0x14–0x19
    static let magDataXL: UInt8 = 0x0E
    static let gyrDataXL: UInt8 = 0x14
    static let eulHeadingL: UInt8 = 0x1A     // EUL heading, roll, pitch 0x1A–0x1F
    static let quaWL: UInt8 = 0x20           // QUA w, x, y, z 0x20–0x27, 2^14 LSB = 1
    static let liaDataXL: UInt8 = 0x28       // linear acceleration 0x28–0x2D
    static let grvDataXL: UInt8 = 0x2E       // gravity 0x2E–0x33
    static let temp: UInt8 = 0x34
    static let calibStat: UInt8 = 0x35       // SYS[7:6] GYR[5:4] ACC[3:2] MAG[1:0]
    static let stResult: UInt8 = 0x36        // ST_MCU[3] ST_GYR[2] ST_MAG[1] ST_ACC[0]
    static let sysStatus: UInt8 = 0x39       // 0 idle, 5 fusion running, 6 running without fusion
    static let sysErr: UInt8 = 0x3A
    static let unitSel: UInt8 = 0x3B         // ORI[7] TEMP[4] EUL[2] GYR[1] ACC[0]
    static let oprMode: UInt8 = 0x3D         // [3:0]
    static let pwrMode: UInt8 = 0x3E         // [1:0]
    static let sysTrigger: UInt8 = 0x3F      // CLK_SEL[7] RST_INT[6] RST_SYS[5] Self_Test[0]
    static let axisMapConfig: UInt8 = 0x41   // Z[5:4] Y[3:2] X[1:0]: which chip axis feeds each output axis; reset 0x24
    static let axisMapSign: UInt8 = 0x42     // X[2] Y[1] Z[0]: 1 = negated; reset 0x00
    // Page 1
    static let accConfig: UInt8 = 0x08       // ACC_PWR_Mode[7:5] ACC_BW[4:2] ACC_Range[1:0]; reset 0x0D (±4 g)
    static let gyrConfig0: UInt8 = 0x0A      // GYR_Bandwidth[5:3] GYR_Range[2:0]; reset 0x38 (±2000 °/s)

    /// Operation modes (§3.3): CONFIG 0, ACCONLY 1, MAGONLY 2, GYROONLY 3, ACCMAG 4, ACCGYRO 5,
    /// MAGGYRO 6, AMG 7; fusion IMU 8, COMPASS 9, M4G 10, NDOF_FMC_OFF 11, NDOF 12.
    static let configMode: UInt8 = 0
    static let fusionModes: ClosedRange<UInt8> = 8...12

    /// ACC_Range code → g: ±2/4/8/16 g. GYR_Range code 0…4 → ±2000/1000/500/250/125 °/s.
    static let accRanges: [Double] = [2, 4, 8, 16]
    static let gyrRanges: [Double] = [2000, 1000, 500, 250, 125]

    let source: any PhysicalSource
    let options: EmulatorOptions
    var pointer: UInt8 = 0
    var registers = [UInt8](repeating: 0, count: 2 * 128)
    /// Read transactions served since power-on (for ``EmulatorOptions/stretchedReadEvery``).
    var readTransactions = 0

    init(source: any PhysicalSource, options: EmulatorOptions) {
        self.source = source
        self.options = options
        powerOnReset()
    }

    /// Power-on (and RST_SYS): page 0, CONFIG mode, identity and revision registers, the
    /// power-on self-test passed for every part that works, page-1 defaults. The real chip does
    /// not answer for about 650 ms; the emulator is back at once.
    mutating func powerOnReset() {
        registers = [UInt8](repeating: 0, count: 2 * 128)
        for (register, value) in [(0x00, 0xA0), (0x01, 0xFB), (0x02, 0x32), (0x03, 0x0F), (0x04, 0x11), (0x05, 0x03),
                                  (0x06, 0x15), (Int(Self.unitSel), 0x80), (Int(Self.axisMapConfig), 0x24)] {
            registers[register] = UInt8(value)
        }
        registers[128 + Int(Self.accConfig)] = 0x0D
        registers[128 + Int(Self.gyrConfig0)] = 0x38
        registers[Int(Self.stResult)] = selfTestResult
        pointer = 0
    }

    var page: Int { Int(registers[Int(Self.pageID)] & 0x01) }
    var mode: UInt8 { reg(Self.oprMode) & 0x0F }
    var isFusion: Bool { Self.fusionModes.contains(mode) }
    var accelerometerOn: Bool { [1, 4, 5, 7, 8, 9, 10, 11, 12].contains(mode) }
    var magnetometerOn: Bool { [2, 4, 6, 7, 9, 10, 11, 12].contains(mode) }
    var gyroscopeOn: Bool { [3, 5, 6, 7, 8, 11, 12].contains(mode) }

    /// ST_RESULT: a part with a dead axis fails its built-in test; the microcontroller passes.
    var selfTestResult: UInt8 {
        func healthy(_ sensor: (SensorAxis.Axis) -> SensorAxis) -> Bool {
            SensorAxis.Axis.allCases.allSatisfy { !options.deadAxes.contains(sensor($0)) }
        }
        return (healthy(SensorAxis.accelerometer) ? 0x01 : 0) | (healthy(SensorAxis.magnetometer) ? 0x02 : 0)
            | (healthy(SensorAxis.gyroscope) ? 0x04 : 0) | 0x08
    }

    /// In fusion modes the chip runs its sensors at fixed settings (±4 g, ±2000 °/s); otherwise
    /// page 1 chooses.
    var accelerometerRange: Double { isFusion ? 4 : Self.accRanges[Int(registers[128 + Int(Self.accConfig)] & 0x03)] }
    var gyroscopeRange: Double { isFusion ? 2000 : Self.gyrRanges[min(Int(registers[128 + Int(Self.gyrConfig0)] & 0x07), 4)] }

    /// AXIS_MAP_CONFIG / AXIS_MAP_SIGN applied to a chip-axes vector (§3.4).
    func remapped(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let config = reg(Self.axisMapConfig), sign = reg(Self.axisMapSign)
        var result = SIMD3<Double>.zero
        for axis in 0..<3 {
            let from = min(Int((config >> UInt8(2 * axis)) & 0x03), 2)
            let negated = (sign >> UInt8(2 - axis)) & 0x01 != 0
            result[axis] = negated ? -v[from] : v[from]
        }
        return result
    }

    /// Output counts of `value` at `perLSB` units per count, clamped to ± `limit` (the sensor's
    /// range, in the same units).
    func counts(_ value: SIMD3<Double>, limit: Double, perLSB: Double) -> SIMD3<Int16> {
        Encoding.counts(SIMD3(value.x.clamped(limit), value.y.clamped(limit), value.z.clamped(limit)), perLSB: perLSB)
    }

    /// Stores the data registers 0x08–0x33 for `state` in the current mode and units (§3.6.4):
    /// acceleration 100 LSB per m/s² (or 1 LSB per mg), field 16 LSB per µT, angular rate 16 LSB
    /// per °/s (or 900 per rad/s), Euler angles 16 LSB per degree (or 900 per radian), quaternion
    /// 2^14 LSB; the fusion outputs 0 outside the fusion modes.
    mutating func storeData(_ state: PhysicalState) {
        let units = reg(Self.unitSel)
        let force = remapped(Encoding.masking(state.specificForce, deadAxes: options.deadAxes, SensorAxis.accelerometer))
        let field = remapped(Encoding.masking(state.magneticField, deadAxes: options.deadAxes, SensorAxis.magnetometer))
        let rate = remapped(Encoding.masking(state.angularRate, deadAxes: options.deadAxes, SensorAxis.gyroscope))
        let gravity = Encoding.gravity
        let accel = units & 0x01 != 0
            ? counts(force / gravity * 1000, limit: accelerometerRange * 1000, perLSB: 1)
            : counts(force, limit: accelerometerRange * gravity, perLSB: 0.01)
        let gyro = units & 0x02 != 0
            ? counts(rate, limit: gyroscopeRange / Encoding.degreesPerRadian, perLSB: 1 / 900)
            : counts(rate * Encoding.degreesPerRadian, limit: gyroscopeRange, perLSB: 1 / 16)
        store(Encoding.littleEndian(accelerometerOn ? accel : .zero), at: Self.accDataXL)
        store(Encoding.littleEndian(magnetometerOn ? counts(field, limit: 1300, perLSB: 1 / 16) : .zero), at: Self.accDataXL + 6)
        store(Encoding.littleEndian(gyroscopeOn ? gyro : .zero), at: Self.accDataXL + 12)
        guard isFusion, let orientation = fusedOrientation(state, force: force, field: field) else {
            for address in Int(Self.accDataXL + 18)..<0x34 { registers[address] = 0 }
            return
        }
        // Euler angles (heading clockwise from north, roll, pitch), by this emulator's reading of
        // the chip's quaternion: heading of the y axis, the library's roll and pitch.
        let perAngleLSB = units & 0x04 != 0 ? 1 / 900.0 : 1 / 16.0
        let toUnit = units & 0x04 != 0 ? 1.0 : Encoding.degreesPerRadian
        var heading = -orientation.yaw * toUnit
        if heading < 0 { heading += 360 / Encoding.degreesPerRadian * toUnit }
        store(Encoding.littleEndian(SIMD3(Encoding.int16(heading / perAngleLSB), Encoding.int16(orientation.roll * toUnit / perAngleLSB),
                                          Encoding.int16(orientation.pitch * toUnit / perAngleLSB))), at: Self.accDataXL + 18)
        let q = orientation.w < 0 ? Quaternion(w: -orientation.w, x: -orientation.x, y: -orientation.y, z: -orientation.z) : orientation
        store(Encoding.littleEndian(Encoding.int16(q.w * 16384)) + Encoding.littleEndian(SIMD3(
            Encoding.int16(q.x * 16384), Encoding.int16(q.y * 16384), Encoding.int16(q.z * 16384))), at: Self.accDataXL + 24)
        // Gravity and linear acceleration, chip axes, in the accelerometer's unit.
        let gravityChip = orientation.inverseRotate(SIMD3(0, 0, gravity))
        let scale = units & 0x01 != 0 ? 1000 / gravity : 100
        store(Encoding.littleEndian(Encoding.counts((force - gravityChip) * scale, perLSB: 1)), at: Self.accDataXL + 32)
        store(Encoding.littleEndian(Encoding.counts(gravityChip * scale, perLSB: 1)), at: Self.accDataXL + 38)
    }

    /// What the fusion reports: the true orientation (the fusion converged) mapped through the
    /// axis remap, or the one the accelerometer and magnetometer give when the source does not
    /// know it. chip (remapped) axes → magnetic East-North-Up.
    func fusedOrientation(_ state: PhysicalState, force: SIMD3<Double>, field: SIMD3<Double>) -> Quaternion? {
        if let truth = state.orientation {
            let identityMap = reg(Self.axisMapConfig) == 0x24 && reg(Self.axisMapSign) == 0
            guard !identityMap else { return truth }
            // Output axes from chip axes: the remap as a matrix (rows: remapped unit vectors).
            let m = Matrix3(rows: remapped(SIMD3(1, 0, 0)), remapped(SIMD3(0, 1, 0)), remapped(SIMD3(0, 0, 1))).transposed
            return truth * Quaternion(rotationMatrix: m.transposed)
        }
        return Quaternion.magneticENU(specificForce: force, magneticField: field)
    }

    mutating func advance(to time: Double) {
        guard mode != Self.configMode else { return }
        let state = source.state(at: time)
        storeData(state)
        registers[Int(Self.temp)] = UInt8(bitPattern: Int8(max(-128, min(127, state.temperature.rounded()))))
    }

    func pointer(after register: UInt8) -> UInt8 { (register + 1) & 0x7F }

    func peek(_ register: UInt8) -> UInt8 {
        let address = register & 0x7F
        if address == Self.pageID { return reg(Self.pageID) }
        return registers[page * 128 + Int(address)]
    }

    mutating func read(_ register: UInt8) -> UInt8 { peek(register) }

    mutating func write(_ value: UInt8, to register: UInt8, at time: Double) {
        let address = register & 0x7F
        if address == Self.pageID {
            registers[Int(Self.pageID)] = value & 0x01
            return
        }
        if page == 1 {
            // Sensor configuration is taken in CONFIG mode only (§3.5).
            if mode == Self.configMode { registers[128 + Int(address)] = value }
            return
        }
        switch address {
        case Self.chipID...Self.swRevLSB + 2, Self.accDataXL...Self.sysErr:
            return  // read-only
        case Self.oprMode:
            registers[Int(address)] = value & 0x0F
            registers[Int(Self.sysStatus)] = mode == Self.configMode ? 0 : isFusion ? 5 : 6
            registers[Int(Self.calibStat)] = isFusion ? 0xFF : 0
            if mode == Self.configMode { store([UInt8](repeating: 0, count: 0x34 - 0x08), at: Self.accDataXL) }
        case Self.sysTrigger:
            if value & 0x20 != 0 {
                powerOnReset()  // RST_SYS
                return
            }
            // Self_Test runs in CONFIG mode only and is over at once here; the trigger bits clear themselves.
            if value & 0x01 != 0, mode == Self.configMode { registers[Int(Self.stResult)] = selfTestResult }
            registers[Int(address)] = value & 0x80
        case Self.unitSel, Self.pwrMode, Self.axisMapConfig, Self.axisMapSign:
            if mode == Self.configMode { registers[Int(address)] = value }
        default:
            if mode == Self.configMode { registers[Int(address)] = value }
        }
    }

    /// A read transaction: the chip may stretch the clock (``EmulatorOptions/stretchedReadEvery``),
    /// which a controller that ignores clock stretching reads as 0xFF bytes.
    mutating func serveRead(into buffer: UnsafeMutableRawBufferPointer, at time: Double) {
        readTransactions += 1
        handleRead(into: buffer, at: time)
        if let every = options.stretchedReadEvery, every > 0, readTransactions % every == 0 {
            for index in buffer.indices { buffer[index] = 0xFF }
        }
    }
}

private extension Double {
    func clamped(_ limit: Double) -> Double { Swift.max(-limit, Swift.min(limit, self)) }
}

/// Bosch BNO055 emulator (CHIP_ID 0x00 = 0xA0), at 0x28 (COM3 low) or 0x29.
///
/// Starts in CONFIG mode on page 0. OPR_MODE chooses the sensors that run and whether the fusion
/// runs: then the data registers (0x08–0x33) follow `source` at `now()` in the units UNIT_SEL
/// selects, the axes as AXIS_MAP_CONFIG/SIGN remap them; in the fusion modes (IMU, COMPASS, M4G,
/// NDOF_FMC_OFF, NDOF) the quaternion is the source's true orientation (``PhysicalState/orientation``,
/// chip → magnetic East-North-Up) or, when the source does not know it, the orientation its
/// specific force and field give; the sensors then run at ±4 g and ±2000 °/s whatever page 1
/// says. SYS_TRIGGER RST_SYS resets every register at once (the real chip is away ~650 ms);
/// Self_Test in CONFIG mode sets ST_RESULT, clearing the bit of a part with a dead axis. Not
/// emulated: data rates (the registers follow the source continuously), calibration, interrupts.
///
/// ``EmulatorOptions/stretchedReadEvery`` reproduces what a Raspberry Pi sees of the chip's clock
/// stretching: every N-th read transaction returns 0xFF bytes.
package final class BNO055Emulator: ChipEmulator {
    package let chipName = "BNO055"
    let engine: EmulatorEngine<BNO055Chip>

    /// - Parameters:
    ///   - source: what the chip experiences, in the chip's axes.
    ///   - now: simulation time in seconds.
    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions = .init()) {
        engine = EmulatorEngine(BNO055Chip(source: source, options: options), now: now)
    }

    package func handleWrite(_ bytes: [UInt8]) { engine.handleWrite(bytes) }
    package func handleRead(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
            serveRead(into: UnsafeMutableRawBufferPointer(buffer))
            initialized = buffer.count
        }
    }
    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let time = engine.now()
        engine.withChip { chip in
            chip.setPointer(fromSubAddress: register)
            chip.serveRead(into: buffer, at: time)
        }
        return buffer.count
    }
    private func serveRead(into buffer: UnsafeMutableRawBufferPointer) {
        let time = engine.now()
        engine.withChip { $0.serveRead(into: buffer, at: time) }
    }
    package func powerOnReset() { engine.powerOnReset() }
    package func peek(_ register: UInt8) -> UInt8 { engine.peek(register) }
}

extension SimulatedBoard.IMU {
    /// the Bosch BNO055 (its magnetometer and fusion inside).
    public static let bno055 = Self("bno055")
}
