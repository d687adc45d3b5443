import I2C

/// Identifies supported chips on a bus and builds their drivers, from ``ChipRegistry``: which
/// chips sit at an address, which identity registers to read there and in what order, and each
/// chip's driver.
package enum ChipCatalog {
    /// Where the supported chips live: every address a descriptor in ``ChipRegistry`` lists
    /// (AK8963/AK09916/AK8975 0x0C, QMC5883L 0x0D, LIS3MDL (and the LSM9DS1's magnetometer, which
    /// answers as one) 0x1C/0x1E, LIS2MDL/HMC5883L 0x1E, BNO055 0x28/0x29, InvenSense MPU,
    /// ICM-20948, ICM-42688-P and BMI160 0x68/0x69, LSM6 and LSM9DS1 0x6A/0x6B, the BMP280
    /// barometer 0x76/0x77), ascending.
    package static let usualAddresses: [I2CAddress] = ChipRegistry.usualAddresses

    /// One identity read at an address: the register, the writes that must come first (chips with
    /// a preamble are read apart from those without), and the chips listed there that keep their
    /// identity in it, in registry order. Reads as many bytes as the longest identity; the first
    /// chip whose identity starts the bytes read wins.
    private struct IdentityRead {
        var register: UInt8
        var preamble: IdentityPreamble?
        var chips: [ChipDescriptor]
        var count: Int { chips.map(\.identity.value.count).max() ?? 1 }
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
    /// - Parameter pause: how to wait out a chip's ``IdentityPreamble/settle`` time.
    /// - Parameter chips: the chips to look for (the registry's; a test may pass its own).
    ///
    /// Only registers of chips known at the address are read, each a plain read of an ID
    /// register, in the order ``ChipRegistry`` gives; a chip whose identity needs waking
    /// (``ChipIdentity/preamble``) has its writes made, and its settle time waited, just before its
    /// read. An MPU-6050-looking chip (WHO_AM_I 0x68) is told from an MPU-9150 by its AK8975 (see
    /// ``mpu9150OrMPU6050(bus:chip:twin:)``), writing only to a chip already known to be an MPU.
    package static func identify(
        bus: any I2CBus, address: I2CAddress, lsm6dso32: Bool = false, insidePackageOf package: String? = nil,
        pause: Pause = .system, among chips: [ChipDescriptor] = ChipRegistry.identifiable
    ) throws(SensorError) -> ChipInfo? {
        let named: Set<String> = lsm6dso32 ? [ChipDescriptor.lsm6dso32.name] : []
        for read in identityReads(at: address, among: chips, named: named, package: package) {
            let found: [UInt8]
            do {
                if let preamble = read.preamble {
                    for write in preamble.writes { try bus.writeRegister(address, write.register, write.value) }
                    pause.wait(preamble.settle)
                }
                found = try bus.readRegisters(address, read.register, count: read.count)
            } catch {
                if error.kind == .noAcknowledge { return nil }
                throw .bus(error)
            }
            if let chip = read.chips.first(where: { found.starts(with: $0.identity.value) })?.chip(at: address) {
                guard let twin = lookalike(of: chip) else { return chip }
                return try mpu9150OrMPU6050(bus: bus, chip: chip, twin: twin)
            }
        }
        for chip in chips where chip.identity.condition == .promCRC4 && chip.identity.addresses.contains(address) {
            if try hasValidPROM(bus: bus, address: address, from: chip.identity.register) { return chip.chip(at: address) }
        }
        for chip in chips where chip.identity.condition == .shtpProductID && chip.identity.addresses.contains(address) {
            if try SHTPIdentification.answersProductID(bus: bus, address: address, pause: pause) { return chip.chip(at: address) }
        }
        return nil
    }

    /// Whether the eight 16-bit words read at `register`, `register + 2`, … (the MS5611's PROM
    /// read commands) hold their CRC-4 (``MS5611PROM/isValid``). Reads only; a missing
    /// acknowledge is no PROM.
    private static func hasValidPROM(bus: any I2CBus, address: I2CAddress, from register: UInt8) throws(SensorError) -> Bool {
        var words: [UInt16] = []
        for index in 0..<8 {
            do {
                let bytes = try bus.readRegisters(address, register &+ UInt8(2 * index), count: 2)
                words.append(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
            } catch {
                if error.kind == .noAcknowledge { return false }
                throw .bus(error)
            }
        }
        return MS5611PROM(words: words).isValid
    }

    /// The identity reads at `address`: one per identity register of the chips listed there, in
    /// registry order. Inside the package of an IMU whose built-in magnetometer answers exactly as
    /// another chip (the MPU-9150's AK8975), that magnetometer alone.
    private static func identityReads(
        at address: I2CAddress, among chips: [ChipDescriptor], named: Set<String>, package: String?
    ) -> [IdentityRead] {
        let here = chips.filter { $0.identity.addresses.contains(address) }
        if let inside = package.flatMap({ name in chips.first { $0.name == name }?.builtInMagnetometer }),
           let chip = here.first(where: { $0.name == inside && $0.identity.condition == .insidePackage }) {
            return [IdentityRead(register: chip.identity.register, preamble: chip.identity.preamble, chips: [chip])]
        }
        var reads: [IdentityRead] = []
        for chip in here where isReadFor(chip, named: named) {
            let (register, preamble) = (chip.identity.register, chip.identity.preamble)
            if let index = reads.firstIndex(where: { $0.register == register && $0.preamble == preamble }) {
                reads[index].chips.append(chip)
            } else {
                reads.append(IdentityRead(register: register, preamble: preamble, chips: [chip]))
            }
        }
        return reads
    }

    /// Whether an identity read at the chip's address may name it, given the chips the caller named.
    private static func isReadFor(_ chip: ChipDescriptor, named: Set<String>) -> Bool {
        switch chip.identity.condition {
        case .always: true
        case .onlyWhenNamed: named.contains(chip.name)
        case .unlessNamed(let lookalike): !named.contains(lookalike)
        case .insidePackage, .lookalikeWithMagnetometerBehindBypass, .promCRC4, .shtpProductID: false
        }
    }

    /// The chip that answers exactly as `chip` and is told from it by a magnetometer behind its
    /// bypass, with that switch and magnetometer (the MPU-9150 for an MPU-6050); nil for most chips.
    private static func lookalike(of chip: ChipInfo) -> (chip: ChipDescriptor, bypass: BypassSwitch, magnetometer: ChipDescriptor)? {
        for twin in ChipRegistry.all {
            guard case .lookalikeWithMagnetometerBehindBypass(let of, let bypass) = twin.identity.condition, of == chip.name,
                  let magnetometer = twin.builtInMagnetometer.flatMap(ChipRegistry.descriptor(named:)) else { continue }
            return (twin, bypass, magnetometer)
        }
        return nil
    }

    /// An MPU-6050 (`chip`, WHO_AM_I 0x68) is an MPU-9150 (`twin`) when an AK8975 answers WIA 0x48
    /// at 0x0C (AK8975 datasheet register map; ak8975.c AK8975_DEVICE_ID) exactly while INT_PIN_CFG
    /// (0x37) BYPASS_EN (bit 1) is set (register 55, RM-MPU-6000A and RM-MPU-9150A §4.15). Steps:
    /// read INT_PIN_CFG and WIA at 0x0C as things are; then flip BYPASS_EN and ask 0x0C again. Only
    /// the MPU is written to. With the bypass off, a WIA 0x48 at 0x0C is a separate magnetometer:
    /// the chip stays an MPU-6050 and nothing is written. Found (0x48 only with the bypass on): an
    /// MPU-9150, left with the bypass on (its driver turns it on anyway); otherwise INT_PIN_CFG
    /// gets its value back. The bypass joins the buses only while USER_CTRL I2C_MST_EN is clear
    /// (its power-on value); a chip whose I2C master is on stays an MPU-6050 here. The registers,
    /// the AK8975's identity and address come from the MPU-9150's and the AK8975's descriptors.
    static func mpu9150OrMPU6050(
        bus: any I2CBus, chip: ChipInfo, twin: (chip: ChipDescriptor, bypass: BypassSwitch, magnetometer: ChipDescriptor)
    ) throws(SensorError) -> ChipInfo {
        let (bypassRegister, bypass) = (twin.bypass.register, twin.bypass.mask)
        let pinConfig: UInt8
        do {
            pinConfig = try bus.readRegisters(chip.address, bypassRegister, count: 1).first ?? 0
        } catch {
            throw .bus(error)
        }
        let bypassOn = pinConfig & bypass != 0
        let before = try answersIdentity(bus, of: twin.magnetometer)
        // A device at 0x0C with the bypass off is not behind it; nothing there with it on, no AK.
        if bypassOn ? before == nil : before != nil { return chip }
        try writePinConfig(bus, chip, bypassRegister, pinConfig ^ bypass)
        let after: UInt8?
        do {
            after = try answersIdentity(bus, of: twin.magnetometer)
        } catch {
            // The read's error is the one to report, whether or not the bypass could be put back.
            do { try writePinConfig(bus, chip, bypassRegister, pinConfig) } catch {}
            throw error
        }
        let ak8975 = twin.magnetometer.identity.value.first
        let behindBypass = bypassOn ? (before == ak8975 && after == nil) : after == ak8975
        // Leave the bypass on for an MPU-9150; else as it was.
        let wanted = behindBypass ? pinConfig | bypass : pinConfig
        if wanted != pinConfig ^ bypass { try writePinConfig(bus, chip, bypassRegister, wanted) }
        return behindBypass ? twin.chip.chip(at: chip.address) : chip
    }

    /// The magnetometer's identity register (WIA) at its address, or nil when nothing acknowledges there.
    private static func answersIdentity(_ bus: any I2CBus, of magnetometer: ChipDescriptor) throws(SensorError) -> UInt8? {
        guard let address = magnetometer.identity.addresses.first else { return nil }
        do {
            return try bus.readRegisters(address, magnetometer.identity.register, count: 1).first
        } catch {
            if error.kind == .noAcknowledge { return nil }
            throw .bus(error)
        }
    }

    private static func writePinConfig(_ bus: any I2CBus, _ chip: ChipInfo, _ register: UInt8, _ pinConfig: UInt8) throws(SensorError) {
        do {
            try bus.writeRegister(chip.address, register, pinConfig)
        } catch {
            throw .bus(error)
        }
    }

    /// Identifies every usual address; addresses with no device or an unknown device are left out.
    package static func probe(bus: any I2CBus, lsm6dso32: Bool = false, pause: Pause = .system) throws(SensorError) -> [ChipInfo] {
        var chips: [ChipInfo] = []
        for address in usualAddresses {
            if let chip = try identify(bus: bus, address: address, lsm6dso32: lsm6dso32, pause: pause) { chips.append(chip) }
        }
        return chips
    }

    /// The magnetometer inside the package of the IMU named `imu` (the MPU-9150's AK8975, the
    /// MPU-9250's AK8963, the ICM-20948's AK09916), at the address it answers once the IMU's I2C
    /// bypass is on; nil for chips without one.
    package static func builtInMagnetometer(inside imu: String) -> ChipInfo? {
        guard let magnetometer = ChipRegistry.descriptor(named: imu)?.builtInMagnetometer.flatMap(ChipRegistry.descriptor(named:)),
              let address = magnetometer.identity.addresses.first else { return nil }
        return magnetometer.chip(at: address)
    }

    /// The accelerometer + gyroscope driver for an identified chip; `nil` for a magnetometer.
    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`).
    package static func makeIMU(
        for chip: ChipInfo, bus: any I2CBus, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit
    ) -> (any IMUDriver)? {
        chip.descriptor?.makeIMU(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
    }

    /// The magnetometer driver for an identified chip; `nil` for an IMU (the BNO055's magnetometer
    /// comes from its IMU driver, ``IMUDriver/companionMagnetometer``).
    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`).
    package static func makeMagnetometer(
        for chip: ChipInfo, bus: any I2CBus, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit
    ) -> (any MagnetometerDriver)? {
        chip.descriptor?.makeMagnetometer(bus: bus, address: chip.address, pause: pause, resetCompletion: resetCompletion)
    }
}

/// How a chip's identity read held up when repeated: a healthy bus gives the same answer every
/// time; a bus that corrupts transfers now and then (a controller that mishandles clock
/// stretching, weak pull-ups, long wires) gives a mix.
package struct IdentityReadStability: Sendable, Equatable {
    /// The chip the reads named (the first one identified); nil when none did.
    package var chip: ChipInfo?
    /// Reads that named `chip`.
    package var good: Int
    /// Reads that returned bytes naming no chip, or another one.
    package var wrong: Int
    /// Reads that failed on the bus (no acknowledge, bus error, timeout).
    package var failed: Int

    package var attempts: Int { good + wrong + failed }
    /// Some reads named the chip and some did not: the chip is there, the bus is unreliable.
    package var isIntermittent: Bool { good > 0 && wrong + failed > 0 }
}

extension ChipCatalog {
    /// Identifies the chip at `address` `attempts` times in a row (reads only, as
    /// ``identify(bus:address:lsm6dso32:)``) and counts how the answers agree.
    package static func identityStability(bus: any I2CBus, address: I2CAddress, attempts: Int) -> IdentityReadStability {
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

    /// True for chips that stretch the I2C clock while they prepare data (the BNO055: its
    /// descriptor's ``ChipDescriptor/stretchesClock``), which a controller that does not honour
    /// stretching (the Raspberry Pi's) reads wrongly now and then. The chip's family decides, so
    /// the BNO055's magnetometer, named apart, counts too.
    package static func stretchesClock(_ chip: ChipInfo) -> Bool {
        ChipRegistry.all.contains { $0.family == chip.family && $0.stretchesClock }
    }
}
