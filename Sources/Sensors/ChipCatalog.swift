import I2C

/// Identifies supported chips on a bus and builds their drivers.
public enum ChipCatalog {
    /// Where the supported chips live: AK8963 0x0C, QMC5883L 0x0D, LIS3MDL (and the LSM9DS1's
    /// magnetometer, which answers as one) 0x1C/0x1E, LIS2MDL/HMC5883L 0x1E, InvenSense MPU,
    /// ICM-42688-P and BMI160 0x68/0x69, LSM6 and LSM9DS1 0x6A/0x6B.
    public static let usualAddresses: [I2CAddress] = [0x0C, 0x0D, 0x1C, 0x1E, 0x68, 0x69, 0x6A, 0x6B].map { I2CAddress($0) }

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
    public static func identify(bus: any I2CBus, address: I2CAddress, lsm6dso32: Bool = false) throws(SensorError) -> ChipInfo? {
        for candidate in candidates(at: address, lsm6dso32: lsm6dso32) {
            let found: [UInt8]
            do {
                found = try bus.readRegisters(address, candidate.register, count: candidate.count)
            } catch {
                if error.kind == .noAcknowledge { return nil }
                throw .bus(error)
            }
            if let chip = candidate.match(found, address) { return chip }
        }
        return nil
    }

    /// Identifies every usual address; addresses with no device or an unknown device are left out.
    public static func probe(bus: any I2CBus, lsm6dso32: Bool = false) throws(SensorError) -> [ChipInfo] {
        var chips: [ChipInfo] = []
        for address in usualAddresses {
            if let chip = try identify(bus: bus, address: address, lsm6dso32: lsm6dso32) { chips.append(chip) }
        }
        return chips
    }

    private static func candidates(at address: I2CAddress, lsm6dso32: Bool) -> [Candidate] {
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
        switch address.rawValue {
        case 0x68, 0x69:
            // Three families share these addresses; each is asked for its own identity register,
            // reads only. The MPU family and the ICM-42688-P keep WHO_AM_I at the same register
            // (0x75): one read. It comes first: on a BMI160 it is a reserved register, while the
            // BMI160's CHIP_ID address (0x00) holds factory trim on the MPU-6050/6500, which could
            // read anything, 0xD1 included; WHO_AM_I is exact, so an MPU never reaches that read.
            let mpu = InvenSenseModel.allCases.map {
                ($0.rawValue, InvenSenseSettings.settings(for: $0).identity, ChipInfo.Family.invenSense)
            }
            let icm = ICM42600Model.allCases.map {
                ($0.rawValue, ICM42600Settings.settings(for: $0).identity, ChipInfo.Family.icm42600)
            }
            return [
                imu(InvenSenseRegister.whoAmI, mpu + icm),
                imu(BMI160Register.chipID, [(BMI160Settings.name, BMI160Settings.identity, .bmi160)]),
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
        case 0x0C:
            return [magnetometer(AK8963Magnetometer.settings)]
        default:
            return []
        }
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
        if let model = LSM6Model(rawValue: chip.name) {
            return LSM6IMU(bus: bus, address: chip.address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
        if chip.family == .bmi160 {
            return BMI160IMU(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
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
        case .ak8963: AK8963Magnetometer(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
        case .invenSense, .icm42600, .lsm6, .bmi160, .lsm9ds1: nil
        }
    }
}
