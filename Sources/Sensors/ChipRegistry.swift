import I2C

/// Every chip this library drives: one line per chip, its ``ChipDescriptor`` in the chip's own
/// folder. Identification (``ChipCatalog``), the usual addresses, the family list, the datasheet
/// limits the hardware checks and the sampler use, and the names the CLI accepts all come from here.
///
/// The order is the order identity registers are read in at an address: a register is read once,
/// for every chip listed at that address that keeps its identity there, at the place its first
/// chip is listed. At 0x68/0x69 the InvenSense MPU chips come first: on an MPU-6050/6500/9250,
/// register 0x00 holds a factory self-test code that may read anything (0xD1 and 0xEA included),
/// so the BMI160's CHIP_ID and the ICM-20948's bank-0 WHO_AM_I (both at 0x00) are read only once
/// WHO_AM_I at 0x75 has shown the device is no MPU (on the BMI160 and the ICM-20948, 0x75 is a
/// reserved register, never an MPU identity). The ICM-45686's WHO_AM_I at 0x72 is read between the
/// two: on it 0x00 is live accelerometer data, which could match the BMI160's, BMI270's or
/// ICM-20948's identity byte. Chips sharing a register are tried in this order,
/// so a longer identity goes before one it starts with (the AK09916 before the AK8963).
package enum ChipRegistry {
    package static let all: [ChipDescriptor] = [
        .mpu6050,
        .mpu9150,
        .mpu6500,
        .mpu9250,
        .icm42688p,
        .icm45686,
        .bmi160,
        .bmi270,
        .icm20948,
        .lsm6ds3,
        .lsm6dsl,
        .lsm6dso,
        .lsm6dso32,
        .lsm6dsr,
        .lsm6dsv16x,
        .lsm9ds1,
        .bno055,
        .bno08x,
        .lis3mdl,
        .lis2mdl,
        .hmc5883l,
        .qmc5883l,
        .bmm150,
        .ak09916,
        .ak8963,
        .ak8975,
        .adxl345,
        .mmc5983ma,
    ]

    /// The accelerometer + gyroscope chips.
    package static var imus: [ChipDescriptor] { all.filter(\.isIMU) }
    /// The magnetometers on their own addresses.
    package static var magnetometers: [ChipDescriptor] { all.filter(\.isMagnetometer) }

    /// The pressure sensors, Bosch's (and Infineon's and TE's) at 0x76/0x77, ST's at 0x5C/0x5D.
    /// Apart from ``all``, which the IMU and magnetometer searches read; identification and probe
    /// read both (``identifiable``).
    ///
    /// At 0x76/0x77, 0x60 is a BME280 when read at 0xD0 and a BMP390 when read at 0x00, so the
    /// order of the reads decides. CHIP_ID at 0xD0 (BMP280, BME280) is read first, then 0x00
    /// (BMP388, BMP390): on a BMP3 0xD0 lies past the end of its memory map (BST-BMP390-DS002
    /// §4.2 stops at CMD, 0x7E), and on a BMP280/BME280 0x00 lies before the start of its
    /// documented map (0x88); neither datasheet says what those read, and the emulators answer 0.
    /// The older, commoner BMP280/BME280 are asked first. The DPS310 (0x0D) comes after the BMP3
    /// chips, whose 0x0D is a running counter (see ``ChipDescriptor/dps310``). The MS5611, which has
    /// no identity register, is tried last, by its PROM's CRC (``IdentityCondition/promCRC4``).
    package static let barometers: [ChipDescriptor] = [
        .bmp280,
        .bme280,
        .bmp388,
        .bmp390,
        .dps310,
        .ms5611,
        .lps25h,
        .lps22hb,
        .lps22hh,
    ]

    /// Every chip identification and probe know: ``all``, then ``barometers``.
    package static var identifiable: [ChipDescriptor] { all + barometers }

    /// Where to look for a barometer, in order (as ``imuScanAddresses``): 0x76, 0x77, 0x5C, 0x5D.
    package static let barometerScanAddresses: [I2CAddress] = scanOrder(barometers, last: [])

    /// Every driver family, in registry order.
    package static var families: [ChipInfo.Family] {
        all.reduce(into: []) { families, chip in if !families.contains(chip.family) { families.append(chip.family) } }
    }

    /// Every address a known chip can answer at, ascending.
    package static var usualAddresses: [I2CAddress] {
        Set(identifiable.flatMap(\.identity.addresses)).sorted()
    }

    /// Where to look for an IMU, in order: every address an IMU here can sit at, those more chips
    /// share first, ties in registry order (the InvenSense and Bosch 0x68/0x69, then ST's
    /// 0x6A/0x6B, then the BNO055's 0x28/0x29). A board file may narrow it (`imuAddresses`).
    package static let imuScanAddresses: [I2CAddress] = scanOrder(imus, last: [])

    /// Where to look for a magnetometer, in order: every address a magnetometer here can sit at,
    /// those more chips share first, ties in registry order, and last the addresses where only
    /// magnetometers that sit in an IMU's package (behind its I2C bypass) are listed (the AKM
    /// chips' 0x0C). A board file may narrow it (`magnetometerAddresses`).
    package static let magnetometerScanAddresses: [I2CAddress] = {
        let packaged = Set(imus.compactMap(\.builtInMagnetometer))
        let onTheirOwn = magnetometers.filter { !packaged.contains($0.name) }.flatMap(\.identity.addresses)
        let insidePackages = Set(magnetometers.flatMap(\.identity.addresses)).subtracting(onTheirOwn)
        return scanOrder(magnetometers, last: insidePackages)
    }()

    /// The addresses of `chips`: by how many of them can sit there, most first; ties in the order
    /// the chips list them; the addresses in `last` after all the others.
    private static func scanOrder(_ chips: [ChipDescriptor], last: Set<I2CAddress>) -> [I2CAddress] {
        var listed: [I2CAddress] = []
        var sharers: [I2CAddress: Int] = [:]
        for address in chips.flatMap(\.identity.addresses) {
            if sharers[address] == nil { listed.append(address) }
            sharers[address, default: 0] += 1
        }
        let position = Dictionary(uniqueKeysWithValues: listed.enumerated().map { ($1, $0) })
        return listed.sorted { a, b in
            let (aLast, bLast) = (last.contains(a), last.contains(b))
            if aLast != bLast { return bLast }
            if sharers[a] != sharers[b] { return sharers[a, default: 0] > sharers[b, default: 0] }
            return position[a, default: 0] < position[b, default: 0]
        }
    }

    /// The chip named `name` as ``ChipInfo/name`` gives it (`MPU-6050`, `LSM6DSR/ISM330DHCX`).
    package static func descriptor(named name: String) -> ChipDescriptor? {
        identifiable.first { $0.name == name }
    }

    /// The chip a person or a board file names: any of its ``ChipDescriptor/cliNames`` or its
    /// ``ChipDescriptor/name``, case, dashes and slashes ignored (`ism330dhcx`, `ICM-42688-P`).
    package static func descriptor(cliName: String) -> ChipDescriptor? {
        let key = Self.key(cliName)
        return all.first { $0.cliNames.contains(key) || Self.key($0.name) == key }
    }

    /// A name as ``ChipDescriptor/cliNames`` writes it: lower case, letters and digits.
    package static func key(_ name: String) -> String { name.lowercased().filter { $0.isLetter || $0.isNumber } }
}
