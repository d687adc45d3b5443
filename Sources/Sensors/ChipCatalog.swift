import I2C

/// Identifies supported chips on a bus and builds their drivers.
public enum ChipCatalog {
    /// Where the supported chips live: AK8963/AK09916/AK8975 0x0C, QMC5883L 0x0D, LIS3MDL (and the
    /// LSM9DS1's magnetometer, which answers as one) 0x1C/0x1E, LIS2MDL/HMC5883L 0x1E, InvenSense
    /// MPU, ICM-20948, ICM-42688-P and BMI160 0x68/0x69, LSM6 and LSM9DS1 0x6A/0x6B, BNO055
    /// 0x28/0x29.
    public static let usualAddresses: [I2CAddress] = [0x0C, 0x0D, 0x1C, 0x1E, 0x28, 0x29, 0x68, 0x69, 0x6A, 0x6B].map { I2CAddress($0) }

    /// The identity reads tried at an address, in order: only registers of chips known there,
    /// each a plain read of an ID register.
    private struct Candidate {
        var register: UInt8
        var count: Int
        var match: (_ found: [UInt8], _ address: I2CAddress) -> ChipInfo?
    }

    /// Reads the identity registers of the chips known at `address`.
    ///
    /// - Parameter lsm6dso32: WHO_AM_I 0x6C is shared by the LSM6DSO/DSOX and the LSM6DSO32;
    ///   only the board can say which, so pass `true` for a DSO32.
    /// - Returns: the chip, or `nil` when nothing answers or the device is not one this library knows.
    /// - Throws: ``SensorError/bus(_:)`` for bus failures other than a missing acknowledge.
    /// - Parameter package: the name of the IMU already identified on this bus, when `address` may
    ///   be the magnetometer inside its package: an AK at 0x0C inside an MPU-9150 is an AK8975,
    ///   whose WIA (0x48) alone would name an AK8963.
    ///
    /// An MPU-6050-looking chip (WHO_AM_I 0x68) is told from an MPU-9150 by its AK8975 (see
    /// ``mpu9150OrMPU6050(bus:chip:)``): the only identification that writes, and only to a chip
    /// already known to be an MPU.
    public static func identify(
        bus: any I2CBus, address: I2CAddress, lsm6dso32: Bool = false, insidePackageOf package: String? = nil
    ) throws(SensorError) -> ChipInfo? {
        for candidate in candidates(at: address, lsm6dso32: lsm6dso32, package: package) {
            let found: [UInt8]
            do {
                found = try bus.readRegisters(address, candidate.register, count: candidate.count)
            } catch {
                if error.kind == .noAcknowledge { return nil }
                throw .bus(error)
            }
            if let chip = candidate.match(found, address) {
                return chip.name == InvenSenseModel.mpu6050.rawValue ? try mpu9150OrMPU6050(bus: bus, chip: chip) : chip
            }
        }
        return nil
    }

    /// Where the magnetometer inside an MPU-9150 or MPU-9250 answers once the bypass is on
    /// (drivers/iio/imu/inv_mpu6050/inv_mpu_magn.c: INV_MPU_MAGN_I2C_ADDR 0x0C).
    static let akAddress = I2CAddress(0x0C)

    /// An MPU-6050 (`chip`, WHO_AM_I 0x68) is an MPU-9150 when an AK8975 answers WIA 0x48 at 0x0C
    /// (AK8975 datasheet register map; ak8975.c AK8975_DEVICE_ID) exactly while INT_PIN_CFG (0x37)
    /// BYPASS_EN (bit 1) is set (register 55, RM-MPU-6000A and RM-MPU-9150A §4.15). Steps: read
    /// INT_PIN_CFG and WIA at 0x0C as things are; then flip BYPASS_EN and ask 0x0C again. Only the
    /// MPU is written to. With the bypass off, a WIA 0x48 at 0x0C is a separate magnetometer: the
    /// chip stays an MPU-6050 and nothing is written. Found (0x48 only with the bypass on): an
    /// MPU-9150, left with the bypass on (its driver turns it on anyway); otherwise INT_PIN_CFG gets
    /// its value back. The bypass joins the buses only while USER_CTRL I2C_MST_EN is clear (its
    /// power-on value); a chip whose I2C master is on stays an MPU-6050 here.
    static func mpu9150OrMPU6050(bus: any I2CBus, chip: ChipInfo) throws(SensorError) -> ChipInfo {
        let bypass = InvenSenseRegister.bypassField.mask
        let pinConfig: UInt8
        do {
            pinConfig = try bus.readRegisters(chip.address, InvenSenseRegister.interruptPinConfig, count: 1).first ?? 0
        } catch {
            throw .bus(error)
        }
        let bypassOn = pinConfig & bypass != 0
        let before = try answersWIA(bus)
        // A device at 0x0C with the bypass off is not behind it; nothing there with it on, no AK.
        if bypassOn ? before == nil : before != nil { return chip }
        try writePinConfig(bus, chip, pinConfig ^ bypass)
        let after: UInt8?
        do {
            after = try answersWIA(bus)
        } catch {
            // The read's error is the one to report, whether or not the bypass could be put back.
            do { try writePinConfig(bus, chip, pinConfig) } catch {}
            throw error
        }
        let ak8975 = AKModel.ak8975.settings.common.identity.first
        let behindBypass = bypassOn ? (before == ak8975 && after == nil) : after == ak8975
        // Leave the bypass on for an MPU-9150; else as it was.
        let wanted = behindBypass ? pinConfig | bypass : pinConfig
        if wanted != pinConfig ^ bypass { try writePinConfig(bus, chip, wanted) }
        return behindBypass
            ? ChipInfo(name: InvenSenseModel.mpu9150.rawValue, family: .invenSense, address: chip.address, identity: chip.identity)
            : chip
    }

    /// WIA at 0x0C, or nil when nothing acknowledges there.
    private static func answersWIA(_ bus: any I2CBus) throws(SensorError) -> UInt8? {
        do {
            return try bus.readRegisters(akAddress, AKModel.ak8975.settings.common.identityRegister, count: 1).first
        } catch {
            if error.kind == .noAcknowledge { return nil }
            throw .bus(error)
        }
    }

    private static func writePinConfig(_ bus: any I2CBus, _ chip: ChipInfo, _ pinConfig: UInt8) throws(SensorError) {
        do {
            try bus.writeRegister(chip.address, InvenSenseRegister.interruptPinConfig, pinConfig)
        } catch {
            throw .bus(error)
        }
    }

    /// Identifies every usual address; addresses with no device or an unknown device are left out.
    public static func probe(bus: any I2CBus, lsm6dso32: Bool = false) throws(SensorError) -> [ChipInfo] {
        var chips: [ChipInfo] = []
        for address in usualAddresses {
            if let chip = try identify(bus: bus, address: address, lsm6dso32: lsm6dso32) { chips.append(chip) }
        }
        return chips
    }

    private static func candidates(at address: I2CAddress, lsm6dso32: Bool, package: String?) -> [Candidate] {
        // Identity registers and values come from each driver's settings table.
        // Families that keep their identity in the same register: one read tells them apart.
        func imu(_ register: UInt8, _ models: [(name: String, identity: UInt8, family: ChipInfo.Family)]) -> Candidate {
            Candidate(register: register, count: 1) { found, address in
                models.first { $0.identity == found.first }
                    .map { ChipInfo(name: $0.name, family: $0.family, address: address, identity: found) }
            }
        }
        func magnetometer(_ settings: MagnetometerSettings) -> Candidate {
            Candidate(register: settings.identityRegister, count: settings.identity.count) { found, address in
                found == settings.identity ? settings.chip(at: address) : nil
            }
        }
        /// One read of the longest identity for chips sharing an identity register; the first
        /// (most specific) whose identity starts the bytes read wins.
        func magnetometers(_ chips: [MagnetometerSettings]) -> Candidate {
            Candidate(register: chips[0].identityRegister, count: chips.map(\.identity.count).max() ?? 1) { found, address in
                chips.first { found.starts(with: $0.identity) }?.chip(at: address)
            }
        }
        switch address.rawValue {
        case 0x68, 0x69:
            // Four families share these addresses; each is asked for its own identity register,
            // reads only, no write to a device not yet known. The MPU family and the ICM-42688-P keep
            // WHO_AM_I at 0x75: one read. The BMI160 (CHIP_ID) and the ICM-20948 (bank-0 WHO_AM_I)
            // keep theirs at 0x00: a second read. The order matters: on an MPU-6050/6500/9250,
            // register 0x00 holds a factory self-test code that may read anything, 0xD1 and 0xEA
            // included, so 0x00 is read only once 0x75 has shown the device is no MPU. On the
            // BMI160 and the ICM-20948, 0x75 is a reserved register, never an MPU identity; the
            // ICM-20948's 0x00 is WHO_AM_I while bank 0 is selected: at power-on, and whenever
            // ICM20948IMU has let go (it always returns to bank 0).
            // The MPU-9150 answers as an MPU-6050 here; identify(bus:address:) then looks for its AK8975.
            let mpu = InvenSenseModel.allCases.filter { $0 != .mpu9150 }.map {
                ($0.rawValue, InvenSenseSettings.settings(for: $0).identity, ChipInfo.Family.invenSense)
            }
            let icm = ICM42600Model.allCases.map {
                ($0.rawValue, ICM42600Settings.settings(for: $0).identity, ChipInfo.Family.icm42600)
            }
            return [
                imu(InvenSenseRegister.whoAmI, mpu + icm),
                imu(BMI160Register.chipID, [
                    (BMI160Settings.name, BMI160Settings.identity, .bmi160),
                    (ICM20948Settings.name, ICM20948Settings.identity, .invenSense),
                ]),
            ]
        case 0x6A, 0x6B:
            // One read of WHO_AM_I (0x0F in both maps) tells the LSM6 chips (0x69, 0x6A, 0x6C)
            // from the LSM9DS1 (0x68). The LSM6DSO/DSOX and the LSM6DSO32 share 0x6C: the caller
            // says which.
            let models = LSM6Model.allCases.filter { $0 != (lsm6dso32 ? .lsm6dso : .lsm6dso32) }
            return [imu(LSM6Register.whoAmI, models.map { ($0.rawValue, LSM6Settings.settings(for: $0).identity, .lsm6) }
                + [(LSM9DS1IMU.name, LSM9DS1Settings().identity, .lsm9ds1)])]
        case 0x1C:
            return [magnetometer(LIS3MDLMagnetometer.settings)]
        case 0x1E:
            return [
                magnetometer(LIS3MDLMagnetometer.settings), magnetometer(LIS2MDLMagnetometer.settings),
                magnetometer(HMC5883LMagnetometer.settings),
            ]
        case 0x0D:
            return [magnetometer(QMC5883LMagnetometer.settings)]
        case 0x28, 0x29:
            // BNO055 (COM3 low / high): one read of CHIP_ID at 0x00 (on page 0, where the chip
            // starts and where BNO055IMU leaves it).
            return [imu(BNO055Register.chipID, [(BNO055Settings.name, BNO055Settings.identity, .bno055)])]
        case 0x0C:
            // WIA(1) 0x00 is 0x48 on both: one read of 0x00–0x01 tells them apart by the
            // AK09916's WIA2 0x09 (the AK8963's 0x01 is INFO), as Linux ak8975.c does.
            // Inside an MPU-9150 the AK at 0x0C is an AK8975: its WIA is the AK8963's.
            if package == InvenSenseModel.mpu9150.rawValue { return [magnetometer(AKModel.ak8975.settings.common)] }
            return [magnetometers([AKModel.ak09916.settings.common, AKModel.ak8963.settings.common])]
        default:
            return []
        }
    }

    /// The magnetometer inside the package of the IMU named `imu` (the MPU-9150's AK8975, the
    /// MPU-9250's AK8963, the ICM-20948's AK09916), at the address it answers once the IMU's I2C
    /// bypass is on; nil for chips without one.
    public static func builtInMagnetometer(inside imu: String) -> ChipInfo? {
        let model: AKModel? = switch imu {
        case InvenSenseModel.mpu9150.rawValue: .ak8975
        case InvenSenseModel.mpu9250.rawValue: .ak8963
        case ICM20948Settings.name: .ak09916
        default: nil
        }
        return model?.settings.common.chip(at: akAddress)
    }

    /// The accelerometer + gyroscope driver for an identified chip; `nil` for a magnetometer.
    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`).
    public static func makeIMU(
        for chip: ChipInfo, bus: any I2CBus, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit
    ) -> (any IMUDriver)? {
        if let model = InvenSenseModel(rawValue: chip.name) {
            return InvenSenseIMU(bus: bus, address: chip.address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
        if let model = ICM42600Model(rawValue: chip.name) {
            return ICM42600IMU(bus: bus, address: chip.address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
        if chip.name == ICM20948Settings.name {
            return ICM20948IMU(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        }
        if let model = LSM6Model(rawValue: chip.name) {
            return LSM6IMU(bus: bus, address: chip.address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
        if chip.family == .bmi160 {
            return BMI160IMU(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        }
        if chip.family == .bno055, chip.name == BNO055Settings.name {
            return BNO055IMU(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        }
        if chip.family == .lsm9ds1 {
            return LSM9DS1IMU(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        }
        return nil
    }

    /// The magnetometer driver for an identified chip; `nil` for an IMU.
    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`).
    public static func makeMagnetometer(
        for chip: ChipInfo, bus: any I2CBus, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit
    ) -> (any MagnetometerDriver)? {
        switch chip.family {
        case .lis3mdl: LIS3MDLMagnetometer(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        case .lis2mdl: LIS2MDLMagnetometer(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        case .qmc5883l: QMC5883LMagnetometer(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        case .hmc5883l: HMC5883LMagnetometer(bus: bus, address: chip.address, pause: pause)
        case .ak8963: AKMagnetometer(bus: bus, address: chip.address, model: .ak8963, pause: pause, resetCompletion: resetCompletion)
        case .ak09916: AKMagnetometer(bus: bus, address: chip.address, model: .ak09916, pause: pause, resetCompletion: resetCompletion)
        case .ak8975: AKMagnetometer(bus: bus, address: chip.address, model: .ak8975, pause: pause, resetCompletion: resetCompletion)
        // The BNO055's magnetometer comes from its IMU driver (IMUDriver.companionMagnetometer).
        case .invenSense, .icm42600, .lsm6, .bmi160, .lsm9ds1, .bno055: nil
        }
    }
}

/// How a chip's identity read held up when repeated: a healthy bus gives the same answer every
/// time; a bus that corrupts transfers now and then (a controller that mishandles clock
/// stretching, weak pull-ups, long wires) gives a mix.
public struct IdentityReadStability: Sendable, Equatable {
    /// The chip the reads named (the first one identified); nil when none did.
    public var chip: ChipInfo?
    /// Reads that named `chip`.
    public var good: Int
    /// Reads that returned bytes naming no chip, or another one.
    public var wrong: Int
    /// Reads that failed on the bus (no acknowledge, bus error, timeout).
    public var failed: Int

    public var attempts: Int { good + wrong + failed }
    /// Some reads named the chip and some did not: the chip is there, the bus is unreliable.
    public var isIntermittent: Bool { good > 0 && wrong + failed > 0 }
}

extension ChipCatalog {
    /// Identifies the chip at `address` `attempts` times in a row (reads only, as
    /// ``identify(bus:address:lsm6dso32:)``) and counts how the answers agree.
    public static func identityStability(bus: any I2CBus, address: I2CAddress, attempts: Int) -> IdentityReadStability {
        var result = IdentityReadStability(chip: nil, good: 0, wrong: 0, failed: 0)
        for _ in 0..<max(0, attempts) {
            do {
                let found = try identify(bus: bus, address: address)
                // A missing acknowledge also reads as nil from identify: counted as wrong.
                if let found, result.chip == nil || result.chip == found {
                    result.chip = found
                    result.good += 1
                } else {
                    result.wrong += 1
                }
            } catch {
                result.failed += 1
            }
        }
        return result
    }

    /// True for chips that stretch the I2C clock while they prepare data (the BNO055, see its
    /// datasheet's I2C protocol section and Adafruit's guide "Raspberry Pi I2C Clock Stretching
    /// Fixes"), which a controller that does not honour stretching (the Raspberry Pi's) reads
    /// wrongly now and then.
    public static func stretchesClock(_ chip: ChipInfo) -> Bool {
        chip.family == .bno055
    }
}
