import I2C

/// Driver for the TDK InvenSense ICM-45686 accelerometer + gyroscope (I2C 0x68 or 0x69).
///
/// Both sensors run in low-noise mode at one output data rate; samples come from one 14-byte
/// burst of ACCEL_DATA_X1_UI … TEMP_DATA0_UI (little-endian). The FIFO runs in stream mode with
/// 16-byte packets (accelerometer, gyroscope, 8-bit temperature and the chip's 16-bit µs
/// timestamp, little-endian), decoded by the same ``ICMFIFOPacket`` as the ICM-42688-P's: frames
/// are numbered in order and carry the packets' timestamps as ``FIFOFrame/chipTime``. No
/// self-test.
package final class ICM45600IMU: CoreIMUDriver, BusPlacedDriver {
    /// 200 Hz, ±4 g, ±500 °/s.
    package let defaultConfiguration = IMUConfiguration(outputDataRate: 200, accelerometerRange: 4, gyroscopeRange: 500)

    typealias State = IMUState<ICMFIFOPacket.Progress>
    let core: DriverCore<ICM45600Settings, State>
    /// PWR_MGMT0: 0x00 after a reset (sensors off), low-noise modes after ``configure(_:)``.
    static let configuredRegister = ICM45600Register.powerManagement0

    /// After turning the sensors on (kernel INV_ICM45600_ACCEL_STARTUP_TIME_MS and
    /// INV_ICM45600_GYRO_STARTUP_TIME_MS, both 60).
    static let startupTime = Duration.milliseconds(60)
    /// Most packets per FIFO_DATA read (fewer on a bus with a shorter read limit).
    static let fifoChunkPackets = 8

    package init(bus: any I2CBus, address: I2CAddress, pause: Pause, resetCompletion: ResetCompletion) {
        core = DriverCore(
            bus: bus, address: address, chip: ChipDescriptor.icm45686Name, .icm45600, identity: ICM45600Settings.icm45686Identity,
            settings: ICM45600Settings(), pause: pause, resetCompletion: resetCompletion, configuration: defaultConfiguration,
            scale: IMUScale(accelerometerLSBPerG: 8192, gyroscopeLSBPerDPS: 65.5))
    }

    /// Identify; soft reset; ranges and rates; both sensors to low-noise mode.
    func apply(_ configuration: IMUConfiguration, to state: inout State) throws(SensorError) {
        state = try program(configuration, settings.tables.optionsWithChipFiltering(for: configuration, chip: chip.name, checkingTablesFirst: true),
                            map: ICM45600Register.map, identity: ICM45600Settings.icm45686Identity)
    }

    /// One 14-byte burst from ACCEL_DATA_X1_UI (0x00): accel, gyro, temperature, little-endian.
    /// Under the driver's lock, so the counts are scaled by the ranges they were read at.
    package func readSample() throws(SensorError) -> IMUSample {
        try core.locked { state throws(SensorError) -> IMUSample in
            try device.burst(ICM45600Register.accelDataX, count: ICM45600Register.sampleBytes) { bytes in
                let raw = Int16(bitPattern: UInt16(bytes[12]) | UInt16(bytes[13]) << 8)
                return state.scale.sample(
                    accelerometer: AxisLayout.littleEndian.counts(bytes, from: 0), gyroscope: AxisLayout.littleEndian.counts(bytes, from: 6),
                    temperature: Double(raw) / ICM45600Settings.temperatureLSBPerDegree + 25)
            }
        }
    }

    // MARK: FIFO (kernel inv_icm45600_buffer.c: inv_icm45600_buffer_init, _postenable, _fifo_read)

    /// The timestamp counter on (SMC_CONTROL_0 TMST_EN through the indirect registers, read,
    /// modified, written) at 1 µs (TMST_WOM_CONFIG), the timestamp in every packet
    /// (FIFO_CONFIG4), FIFO_FULL reported in INT1_STATUS0 (INT1_CONFIG0); then the FIFO started.
    package func enableFIFO() throws(SensorError) {
        try core.locked { state throws(SensorError) in
            typealias Register = ICM45600Register
            let control = try readIndirect(Register.smcControl0)
            try writeIndirect(Register.smcControl0, control | Register.timestampEnable)
            try device.write(Register.timestampConfig, Register.timestampMicroseconds)
            try device.write(Register.fifoConfig4, Register.fifoTimestamps)
            try device.write(Register.interrupt1Config0, Register.fifoFullInterrupt)
            try startFIFO(&state)
        }
    }

    /// Writing off (FIFO_CONFIG3), bypass at the full 8 KiB depth, flush, accelerometer +
    /// gyroscope in every packet, stream mode, and writing on last.
    private func startFIFO(_ state: inout State) throws(SensorError) {
        typealias Register = ICM45600Register
        try device.write(Register.fifoConfig3, Register.fifoSensors)
        try device.write(Register.fifoConfig0, Register.fifoBypass)
        try device.write(Register.fifoConfig2, Register.fifoFlush)
        try device.write(Register.fifoConfig0, Register.fifoStream)
        try device.write(Register.fifoConfig3, Register.fifoWriting)
        state.restartFIFO()
    }

    /// INT1_STATUS0, then FIFO_COUNT (two reads: FIFO_DATA at 0x14 lies between them and a
    /// burst across it would take a byte out of the FIFO); after FIFO_FULL the FIFO is restarted
    /// instead of read (old packets were overwritten). Otherwise FIFO_COUNT whole 16-byte
    /// packets, in order (``ICMFIFOPacket/read(_:from:chunkPackets:device:state:into:)``): the
    /// end marker ends the read; an ODR change flagged after the first packet restarts the FIFO
    /// and is reported like an overflow; a sensor's −32768 on all axes skips the frame but keeps
    /// its index.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        read.restart()
        try core.locked { state throws(SensorError) in
            if try device.read(ICM45600Register.interruptStatus) & ICM45600Register.fifoFullInterrupt != 0 {
                try startFIFO(&state)
                read.overflowed = true
                return
            }
            let packets = try device.burst(ICM45600Register.fifoCount, count: 2) { Int(UInt16(bitPattern: int16LE($0, 0))) }
            let rateChanged = try ICM45600Settings.fifoPacket.read(
                packets, from: ICM45600Register.fifoData, chunkPackets: Self.fifoChunkPackets, device: device, state: &state, into: &read)
            if rateChanged {
                // As after an overflow: the indices start again, so the frames of the old
                // numbering are not handed out with the restart.
                try startFIFO(&state)
                read.restart(overflowed: true)
            }
        }
    }

    /// One indirect register: its 16-bit address into IREG_ADDR (one burst), then IREG_DATA.
    private func readIndirect(_ location: (bank: UInt8, register: UInt8)) throws(SensorError) -> UInt8 {
        do { try device.bus.writeRegisters(device.address, ICM45600Register.indirectAddress, [location.bank, location.register]) } catch {
            throw .bus(error)
        }
        core.pause.wait(ICM45600Register.indirectGap)
        let value = try device.read(ICM45600Register.indirectData)
        core.pause.wait(ICM45600Register.indirectGap)
        return value
    }

    /// One indirect register: its address and the value in one burst from IREG_ADDR on.
    private func writeIndirect(_ location: (bank: UInt8, register: UInt8), _ value: UInt8) throws(SensorError) {
        do {
            try device.bus.writeRegisters(device.address, ICM45600Register.indirectAddress, [location.bank, location.register, value])
        } catch { throw .bus(error) }
        core.pause.wait(ICM45600Register.indirectGap)
    }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test in this driver")
    }
}
