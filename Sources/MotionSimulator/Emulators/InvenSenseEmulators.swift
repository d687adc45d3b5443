import I2C

/// An InvenSense MPU-6050 or MPU-6500 emulator: the register model of the chip `Tag` names, at
/// 0x68 or 0x69. Each chip has its own name for it: ``MPU6050Emulator``, ``MPU6500Emulator``.
package final class MPU6x00Emulator<Tag: ChipModelTag>: TaggedEmulator where Tag.Model == InvenSenseEmulatorModel {
    let engine: EmulatorEngine<InvenSenseChip>
    init(engine: EmulatorEngine<InvenSenseChip>) { self.engine = engine }
    /// The register read, here and not only in ``EngineBackedDevice``: that extension's witness
    /// for a generic class stays generic (unspecialized chip model: 0.7 k instructions a sample).
    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        engine.readRegisters(register, into: buffer)
    }
}

/// An InvenSense 9-axis package of the chip `Tag` names: its IMU die plus an AKM magnetometer
/// (`Tag.Magnetometer`) on the auxiliary bus. With INT_PIN_CFG BYPASS_EN set (and USER_CTRL
/// I2C_MST_EN clear) the magnetometer answers at 0x0C on the host bus; ``attach(to:at:)`` wires
/// both. The package's own I2C master (SLV0 → EXT_SENS_DATA) is not emulated. Each chip has its
/// own name for it: ``MPU9250Emulator``, ``MPU9150Emulator``.
package final class MPU9x50Emulator<Tag: MPU9x50ModelTag>: EngineBackedDevice, ChipEmulator, NineAxisPackage {
    package var chipName: String { Tag.model.rawValue }
    let engine: EmulatorEngine<InvenSenseChip>
    /// The built-in magnetometer, fed from the same source in its own axes.
    package let magnetometer: Tag.Magnetometer
    /// Where the magnetometer answers when the bypass is on.
    package static var magnetometerAddress: I2CAddress { I2CAddress(0x0C) }

    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions = .init()) {
        engine = EmulatorEngine(InvenSenseChip(model: Tag.model, source: source, options: options), now: now)
        magnetometer = Tag.Magnetometer(source: MagnetometerDieSource.akmInMPU9x50(source), now: now, options: options)
    }

    /// The register read, here and not only in ``EngineBackedDevice``: that extension's witness
    /// for a generic class stays generic (unspecialized chip model: 0.7 k instructions a sample).
    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        engine.readRegisters(register, into: buffer)
    }

    package var isBypassEnabled: Bool { bypassSwitchIsOn }
    package func attach(to bus: SimulatedBus, at address: I2CAddress = I2CAddress(0x68)) { attachBothDies(to: bus, at: address) }
    /// Power cycle of the package: both dies back to power-on values.
    package func powerOnReset() { resetBothDies() }
}

/// Names an MPU-9x50 package: its IMU die's model and its magnetometer's emulator.
package protocol MPU9x50ModelTag: ChipModelTag where Model == InvenSenseEmulatorModel {
    associatedtype Magnetometer: ChipEmulator
}

extension InvenSenseEmulatorModel {
    package enum MPU6050: ChipModelTag { public static var model: InvenSenseEmulatorModel { .mpu6050 } }
    package enum MPU6500: ChipModelTag { public static var model: InvenSenseEmulatorModel { .mpu6500 } }
    package enum MPU9250: MPU9x50ModelTag {
        package typealias Magnetometer = AK8963Emulator
        package static var model: InvenSenseEmulatorModel { .mpu9250 }
    }
    package enum MPU9150: MPU9x50ModelTag {
        package typealias Magnetometer = AK8975Emulator
        package static var model: InvenSenseEmulatorModel { .mpu9150 }
    }
}

/// InvenSense MPU-6050 emulator (WHO_AM_I 0x75 = 0x68), at 0x68 or 0x69.
///
/// Asleep at power-on (PWR_MGMT_1 = 0x40). While awake the output registers (0x3B–0x48,
/// big-endian) follow `source` at `now()`; samples are taken at the sample rate (gyroscope output
/// rate / (1 + SMPLRT_DIV)) of the chip's clock, which sets DATA_RDY_INT and, with USER_CTRL
/// FIFO_EN, appends the sensors selected in FIFO_EN to the 1024-byte FIFO (FIFO_COUNT, FIFO_R_W;
/// the oldest data are replaced on overflow, FIFO_OFLOW_INT set). Self-test bits in GYRO_CONFIG
/// and ACCEL_CONFIG deflect the output by 1.03 × the factory trim of SELF_TEST_X…A.
package typealias MPU6050Emulator = MPU6x00Emulator<InvenSenseEmulatorModel.MPU6050>

/// InvenSense MPU-6500 emulator (WHO_AM_I 0x75 = 0x70), at 0x68 or 0x69. As
/// ``MPU6050Emulator`` but awake at power-on (PWR_MGMT_1 = 0x01), a 512-byte FIFO whose
/// CONFIG FIFO_MODE chooses between replacing the oldest data and dropping new data, 32 kHz with
/// FCHOICE_B, the MPU-6500 temperature scale and SELF_TEST_X/Y/Z_GYRO/ACCEL codes.
package typealias MPU6500Emulator = MPU6x00Emulator<InvenSenseEmulatorModel.MPU6500>

/// InvenSense MPU-9250 emulator (WHO_AM_I 0x75 = 0x71): an MPU-6500 plus an AK8963
/// magnetometer on its auxiliary bus. With INT_PIN_CFG BYPASS_EN set (and USER_CTRL I2C_MST_EN
/// clear) the AK8963 answers at 0x0C on the host bus; ``MPU9x50Emulator/attach(to:at:)`` wires both. The
/// MPU-9250's own I2C master (SLV0 → EXT_SENS_DATA) is not emulated.
package typealias MPU9250Emulator = MPU9x50Emulator<InvenSenseEmulatorModel.MPU9250>

/// InvenSense MPU-9150 emulator (WHO_AM_I 0x75 = 0x68, like the MPU-6050): an MPU-6050 die plus
/// an AK8975 magnetometer on its auxiliary bus. With INT_PIN_CFG BYPASS_EN set (and USER_CTRL
/// I2C_MST_EN clear) the AK8975 answers at 0x0C on the host bus; ``MPU9x50Emulator/attach(to:at:)`` wires both.
/// The MPU-9150's own I2C master (SLV0 → EXT_SENS_DATA) is not emulated.
package typealias MPU9150Emulator = MPU9x50Emulator<InvenSenseEmulatorModel.MPU9150>

/// TDK InvenSense ICM-42688-P emulator (WHO_AM_I 0x75 = 0x47), at 0x68 or 0x69.
///
/// Sensors off at power-on (PWR_MGMT0 = 0x00: data registers read −32768). With GYRO_MODE /
/// ACCEL_MODE on, the output registers (TEMP_DATA1 0x1D … GYRO_DATA_Z0 0x2A, big-endian) follow
/// `source` at `now()`; samples are taken at the ODR of the chip's clock, which sets DATA_RDY_INT
/// and, in stream or stop-on-full mode (FIFO_CONFIG), appends packets 1, 2 or 3 as FIFO_CONFIG1
/// selects (2048 bytes; in stream mode the oldest packet is replaced when full, FIFO_FULL_INT
/// set). Packet 3 carries a 16-bit timestamp in µs of the chip's clock since the last reset and
/// the header's ODR-change flags. SELF_TEST_CONFIG EN_Gx / EN_Ax deflect the output by 1.03 ×
/// the factory value of the codes in banks 1 and 2. Not emulated: low-power mode, little-endian
/// output (INTF_CONFIG0 is stored; data stay big-endian, the reset value), the rest of banks 1–4 (plain
/// storage), different accelerometer and gyroscope rates (packets come at the faster one).
package final class ICM42688Emulator: ModelEmulator {
    let engine: EmulatorEngine<ICM42688Chip>
    init(engine: EmulatorEngine<ICM42688Chip>) { self.engine = engine }
}

/// TDK InvenSense ICM-20948 emulator (bank 0 WHO_AM_I 0x00 = 0xEA), at 0x68 or 0x69, with the
/// AK09916 magnetometer on its auxiliary bus.
///
/// Four register banks (REG_BANK_SEL 0x7F); asleep at power-on (PWR_MGMT_1 = 0x41). While awake
/// the output registers (bank 0, 0x2D–0x3A, big-endian: accelerometer, gyroscope, temperature)
/// follow `source` at `now()`; RAW_DATA_0_RDY_INT comes at 1.1 kHz / (1 + GYRO_SMPLRT_DIV) of the
/// chip's clock, which with USER_CTRL FIFO_EN also appends the sensors selected in FIFO_EN_2 to
/// the FIFO (FIFO_COUNT, FIFO_R_W; FIFO_MODE stream or snapshot on overflow, FIFO_OVERFLOW_INT;
/// FIFO_RST). Bank-2 ranges set the scale; bank-2 self-test bits deflect the output by 1.03 ×
/// the factory value of the bank-1 SELF_TEST codes. With INT_PIN_CFG BYPASS_EN set (and
/// USER_CTRL I2C_MST_EN clear) the AK09916 answers at 0x0C on the host bus; ``attach(to:at:)``
/// wires both. Not emulated: the DMP, the I2C master, low-power duty cycling.
package final class ICM20948Emulator: EngineBackedDevice, ChipEmulator, NineAxisPackage {
    package let chipName = "ICM-20948"
    let engine: EmulatorEngine<ICM20948Chip>
    /// The built-in magnetometer, fed from the same source turned into its own axes (y and z
    /// opposite the accelerometer's, DS-000189 §11.1).
    package let magnetometer: AK09916Emulator
    /// Where the AK09916 answers when the bypass is on.
    package static let magnetometerAddress = I2CAddress(0x0C)

    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions = .init()) {
        engine = EmulatorEngine(ICM20948Chip(source: source, options: options), now: now)
        magnetometer = AK09916Emulator(source: MagnetometerDieSource.ak09916InICM20948(source), now: now, options: options)
    }

    package var isBypassEnabled: Bool { bypassSwitchIsOn }
    package func attach(to bus: SimulatedBus, at address: I2CAddress = I2CAddress(0x68)) { attachBothDies(to: bus, at: address) }
    /// Power cycle of the package: both dies back to power-on values.
    package func powerOnReset() { resetBothDies() }
}

/// An IMU chip model with an I2C bypass switch to its auxiliary bus.
protocol BypassChip: RegisterChip {
    /// True while the switch joins the auxiliary bus to the host bus (BYPASS_EN set, I2C master off).
    var bypassEnabled: Bool { get }
}

extension InvenSenseChip: BypassChip {}
extension ICM20948Chip: BypassChip {}

/// A 9-axis package (MPU-9150, MPU-9250, ICM-20948): an IMU die and a magnetometer die on its auxiliary
/// bus, which the host bus reaches only through the IMU's bypass switch.
package protocol NineAxisPackage: SimulatedDevice {
    associatedtype Magnetometer: SimulatedDevice
    /// The magnetometer die.
    var magnetometer: Magnetometer { get }
    /// Where the magnetometer answers when the bypass is on.
    static var magnetometerAddress: I2CAddress { get }
    /// True while the bypass is on: the magnetometer is on the host bus.
    var isBypassEnabled: Bool { get }
    /// Attaches the IMU at `address` (0x68 by default) and the magnetometer at
    /// ``magnetometerAddress``, reachable only through the bypass.
    func attach(to bus: SimulatedBus, at address: I2CAddress)
}

extension NineAxisPackage where Self: EngineBackedDevice, Chip: BypassChip {
    var bypassSwitchIsOn: Bool { engine.withChip { $0.bypassEnabled } }

    /// Power cycle of the package: both dies back to power-on values.
    func resetBothDies() {
        engine.powerOnReset()
        magnetometer.powerOnReset()
    }

    func attachBothDies(to bus: SimulatedBus, at address: I2CAddress) {
        bus.attach(self, at: address)
        bus.attach(magnetometer, at: Self.magnetometerAddress, reachableWhen: { [engine] in engine.withChip { $0.bypassEnabled } })
    }
}
