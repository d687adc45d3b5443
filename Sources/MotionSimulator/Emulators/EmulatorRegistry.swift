import I2C

/// Every chip the simulator emulates: one line per chip, beside its emulator file in `Emulators/`.
/// ``SimulatedBoard``, the CLI's `--imu`/`--magnetometer` names and the error-model presets read
/// it. Written from the datasheets like the emulators themselves: this module does not import the
/// drivers (`Sensors`), so these entries are the simulator's own, not the driver's tables.
///
/// Adding a chip: its emulator file (with its ``SimulatedBoard/IMU``,
/// ``SimulatedBoard/Magnetometer`` or ``SimulatedBoard/Barometer`` static member) and its line here.
package enum EmulatorRegistry {
    /// The IMUs, in ``SimulatedBoard/IMU`` order (the order `--imu` lists them in).
    package static let imus: [IMUEmulatorEntry] = [
        IMUEmulatorEntry(.lsm6dsox, LSM6DSOXEmulator.self, at: 0x6A, magnetometer: .lis3mdl, noiseRate: 208, errors: .lsm6dsox, aliases: ["lsm6dso"]),
        IMUEmulatorEntry(.lsm6dso32, LSM6DSO32Emulator.self, at: 0x6A, magnetometer: .lis3mdl, noiseRate: 208),
        IMUEmulatorEntry(.lsm6dsl, LSM6DSLEmulator.self, at: 0x6A, magnetometer: .lis3mdl, noiseRate: 208),
        IMUEmulatorEntry(.lsm6ds3, LSM6DS3Emulator.self, at: 0x6A, magnetometer: .lis3mdl, noiseRate: 208),
        IMUEmulatorEntry(.lsm6dsr, LSM6DSREmulator.self, at: 0x6A, magnetometer: .lis3mdl, noiseRate: 208, aliases: ["ism330dhcx"]),
        IMUEmulatorEntry(.lsm9ds1, LSM9DS1Emulator.self, at: 0x6A, noiseRate: 119, magnetometerDie: .lsm9ds1),
        IMUEmulatorEntry(.mpu6050, MPU6050Emulator.self, at: 0x68, magnetometer: .qmc5883l, noiseRate: 200, errors: .mpu6050),
        IMUEmulatorEntry(.mpu6500, MPU6500Emulator.self, at: 0x68, magnetometer: .qmc5883l, noiseRate: 200),
        // The MPU-9150's accelerometer and gyroscope are an MPU-6050 die (PS-MPU-9150A §6.1–6.2).
        IMUEmulatorEntry(.mpu9150, MPU9150Emulator.self, at: 0x68, noiseRate: 200, errors: .mpu6050, builtIn: "ak8975"),
        IMUEmulatorEntry(.mpu9250, MPU9250Emulator.self, at: 0x68, noiseRate: 200, errors: .mpu9250, builtIn: "ak8963"),
        IMUEmulatorEntry(.icm20948, ICM20948Emulator.self, at: 0x68, noiseRate: 220, builtIn: "ak09916"),
        IMUEmulatorEntry(.bmi160, BMI160Emulator.self, at: 0x68, magnetometer: .qmc5883l, noiseRate: 200),
        // A BMM150 on its auxiliary interface, read through its registers (`--magnetometer bmm150`
        // adds one on the host bus, as the Arduino Nano 33 BLE Sense Rev2 wires it).
        IMUEmulatorEntry(.bmi270, BMI270Emulator.self, at: 0x68, noiseRate: 200, builtIn: "bmm150"),
        IMUEmulatorEntry(.icm42688, ICM42688Emulator.self, at: 0x68, magnetometer: .qmc5883l, noiseRate: 200, errors: .icm42688, aliases: ["icm42688p"]),
        // AP_AD0 low: 0x68, high: 0x69 (DS-000577 "I2C interface").
        IMUEmulatorEntry(.icm45686, ICM45686Emulator.self, at: 0x68, alternate: 0x69, magnetometer: .qmc5883l, noiseRate: 200),
        IMUEmulatorEntry(.bno055, BNO055Emulator.self, at: 0x28, noiseRate: 100, builtIn: "bno055", calibratesMagnetometer: true),
        // ALT ADDRESS low: 0x53, high: 0x1D (ADXL345 Rev. G, "I2C"). An accelerometer alone; the
        // GY-85 breakout carries it with an HMC5883L.
        IMUEmulatorEntry(.adxl345, ADXL345Emulator.self, at: 0x53, alternate: 0x1D, magnetometer: .hmc5883l, noiseRate: 100),
        // SA0 low: 0x6A, high: 0x6B (DS13510, I²C operation); the LSM6DSV answers the same.
        IMUEmulatorEntry(.lsm6dsv16x, LSM6DSV16XEmulator.self, at: 0x6A, magnetometer: .lis3mdl, noiseRate: 240, aliases: ["lsm6dsv"]),
        IMUEmulatorEntry(.bno08x, BNO08xEmulator.self, at: 0x4A, noiseRate: 100, aliases: ["bno080", "bno085", "bno086"], builtIn: "bno08x", calibratesMagnetometer: true),
    ]

    /// The separate magnetometers, in ``SimulatedBoard/Magnetometer`` order.
    package static let magnetometers: [MagnetometerEmulatorEntry] = [
        // SA1 picks 0x1C or 0x1E.
        MagnetometerEmulatorEntry(.lis3mdl, LIS3MDLEmulator.self, at: [0x1C, 0x1E], errors: .lis3mdl),
        MagnetometerEmulatorEntry(.lis2mdl, LIS2MDLEmulator.self, at: [0x1E]),
        MagnetometerEmulatorEntry(.qmc5883l, QMC5883LEmulator.self, at: [0x0D], errors: .qmc5883l),
        MagnetometerEmulatorEntry(.hmc5883l, HMC5883LEmulator.self, at: [0x1E]),
        MagnetometerEmulatorEntry(.mmc5983ma, MMC5983MAEmulator.self, at: [0x30]),
        // SDO and CSB2 pick 0x10–0x13.
        MagnetometerEmulatorEntry(.bmm150, BMM150Emulator.self, at: [0x10, 0x11, 0x12, 0x13]),
    ]

    /// The barometers, in ``SimulatedBoard/Barometer`` order; the simulated board carries the first.
    package static let barometers: [BarometerEmulatorEntry] = [
        BarometerEmulatorEntry(.bmp280, at: [0x76, 0x77]) { source, now, seed in BMP280Emulator(source: source, now: now, noiseSeed: seed) },
        // The others measure without noise (quantisation only): each chip's own noise is not modelled yet.
        BarometerEmulatorEntry(.bme280, at: [0x76, 0x77]) { source, now, seed in BME280Emulator(atmosphere: source.atmosphere, now: now, noiseSeed: seed) },
        BarometerEmulatorEntry(.bmp388, at: [0x76, 0x77]) { source, now, _ in BMP388Emulator(atmosphere: source.atmosphere, now: now) },
        BarometerEmulatorEntry(.bmp390, at: [0x76, 0x77]) { source, now, _ in BMP390Emulator(atmosphere: source.atmosphere, now: now) },
        BarometerEmulatorEntry(.dps310, at: [0x77, 0x76]) { source, now, _ in DPS310Emulator(atmosphere: source.atmosphere, now: now) },
        BarometerEmulatorEntry(.ms5611, at: [0x77, 0x76]) { source, now, seed in MS5611Emulator(atmosphere: source.atmosphere, now: now, noiseSeed: seed) },
        BarometerEmulatorEntry(.lps25h, at: [0x5C, 0x5D]) { source, now, seed in LPS25HEmulator(atmosphere: source.atmosphere, now: now, noiseSeed: seed) },
        BarometerEmulatorEntry(.lps22hb, at: [0x5C, 0x5D]) { source, now, _ in LPS22HBEmulator(atmosphere: source.atmosphere, now: now) },
        BarometerEmulatorEntry(.lps22hh, at: [0x5C, 0x5D]) { source, now, seed in LPS22HHEmulator(atmosphere: source.atmosphere, now: now, noiseSeed: seed) },
    ]

    /// The entry of `chip`. Every static member has its line (``EmulatorRegistryTests``); one
    /// without is a programming error caught there.
    static func entry(_ chip: SimulatedBoard.IMU) -> IMUEmulatorEntry {
        guard let entry = imus.first(where: { $0.chip == chip }) else {
            preconditionFailure("SimulatedBoard.IMU.\(chip) has no line in EmulatorRegistry.imus")
        }
        return entry
    }

    static func entry(_ chip: SimulatedBoard.Barometer) -> BarometerEmulatorEntry {
        guard let entry = barometers.first(where: { $0.chip == chip }) else {
            preconditionFailure("SimulatedBoard.Barometer.\(chip) has no line in EmulatorRegistry.barometers")
        }
        return entry
    }

    static func entry(_ chip: SimulatedBoard.Magnetometer) -> MagnetometerEmulatorEntry {
        guard let entry = magnetometers.first(where: { $0.chip == chip }) else {
            preconditionFailure("SimulatedBoard.Magnetometer.\(chip) has no line in EmulatorRegistry.magnetometers")
        }
        return entry
    }
}

extension SimulatedBoard {
    /// An IMU chip the simulator can put on the board, by its CLI name (`rawValue`): a struct, not an
    /// enum, so that a new emulated chip is a new static member (beside its emulator) and no
    /// client's `switch` stops compiling. Each has its line in ``EmulatorRegistry/imus``.
    public struct IMU: Hashable, Sendable, CustomStringConvertible {
        /// The CLI name (`lsm6dsox`, `mpu6050`).
        public let rawValue: String

        package init(_ name: String) { rawValue = name }

        /// The chip named `rawValue`; nil for a name the simulator does not emulate.
        public init?(rawValue: String) {
            guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
            self.rawValue = rawValue
        }

        /// Every IMU the simulator emulates, in ``EmulatorRegistry/imus`` order (the order `--imu` lists them in).
        public static var allCases: [IMU] { EmulatorRegistry.imus.map(\.chip) }

        public var description: String { rawValue }
    }

    /// A separate magnetometer chip the simulator can put on the board, by its CLI name (`rawValue`);
    /// a struct like ``IMU``. Each has its line in ``EmulatorRegistry/magnetometers``.
    public struct Magnetometer: Hashable, Sendable, CustomStringConvertible {
        /// The CLI name (`lis3mdl`, `qmc5883l`).
        public let rawValue: String

        package init(_ name: String) { rawValue = name }

        /// The chip named `rawValue`; nil for a name the simulator does not emulate.
        public init?(rawValue: String) {
            guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
            self.rawValue = rawValue
        }

        /// Every separate magnetometer the simulator emulates, in ``EmulatorRegistry/magnetometers`` order.
        public static var allCases: [Magnetometer] { EmulatorRegistry.magnetometers.map(\.chip) }

        public var description: String { rawValue }
    }
}

extension SimulatedBoard {
    /// A barometer the simulator can put on the board, by its CLI name (`rawValue`); a struct
    /// like ``IMU``. Each has its line in ``EmulatorRegistry/barometers``.
    public struct Barometer: Hashable, Sendable, CustomStringConvertible {
        /// The CLI name (`bmp280`).
        public let rawValue: String

        package init(_ name: String) { rawValue = name }

        /// The chip named `rawValue`; nil for a name the simulator does not emulate.
        public init?(rawValue: String) {
            guard Self.allCases.contains(where: { $0.rawValue == rawValue }) else { return nil }
            self.rawValue = rawValue
        }

        /// Every barometer the simulator emulates, in ``EmulatorRegistry/barometers`` order.
        public static var allCases: [Barometer] { EmulatorRegistry.barometers.map(\.chip) }

        public var description: String { rawValue }

        /// The chip's line in ``EmulatorRegistry/barometers``.
        package var entry: BarometerEmulatorEntry { EmulatorRegistry.entry(self) }
    }
}

extension SimulatedBoard.Barometer {
    /// Bosch BME280 (BST-BME280-DS002 §6.2: 0x76 with SDO low, 0x77 high).
    package static let bme280 = Self("bme280")
    /// Bosch BMP388 and BMP390 (BST-BMP390-DS002 §5.2: 0x76 / 0x77 by SDO).
    package static let bmp388 = Self("bmp388")
    package static let bmp390 = Self("bmp390")
    /// Infineon DPS310 (datasheet §5.2: 0x77, or 0x76 with SDO to GND).
    package static let dps310 = Self("dps310")
    /// TE MS5611 (datasheet, "I2C interface": 0x77 with CSB low, 0x76 high).
    package static let ms5611 = Self("ms5611")
    /// ST LPS25H, the Sense HAT's (0x5C with SA0 low, 0x5D high), and the LPS22HB / LPS22HH (the same).
    package static let lps25h = Self("lps25h")
    package static let lps22hb = Self("lps22hb")
    package static let lps22hh = Self("lps22hh")
}

extension PhysicalSource {
    /// The true pressure (Pa) and temperature (°C) at a time, as the barometer emulators take them.
    var atmosphere: @Sendable (Double) -> (pressure: Double, temperature: Double) {
        { [self] time in
            let state = state(at: time)
            return (state.pressure, state.temperature)
        }
    }
}

/// One barometer the simulator emulates.
package struct BarometerEmulatorEntry: Sendable {
    /// Builds the emulator measuring what a source says (its `pressure` and `temperature`) at the
    /// simulation's `now`, with noise from a seed (nil: quantisation only).
    package typealias Make = @Sendable (_ source: any PhysicalSource, _ now: @escaping @Sendable () -> Double, _ noiseSeed: UInt64?) -> any SimulatedDevice

    package let chip: SimulatedBoard.Barometer
    /// The addresses the chip can answer at, the usual one first.
    package let possibleAddresses: [I2CAddress]
    package let make: Make

    init(_ chip: SimulatedBoard.Barometer, at addresses: [UInt8], make: @escaping Make) {
        self.chip = chip
        self.possibleAddresses = addresses.map { I2CAddress($0) }
        self.make = make
    }

    package var usualAddress: I2CAddress { possibleAddresses[0] }
}

/// One IMU the simulator emulates.
package struct IMUEmulatorEntry: Sendable {
    package let chip: SimulatedBoard.IMU
    /// The emulator ``SimulatedBoard`` builds.
    package let emulator: any ChipEmulator.Type
    /// Where the chip usually sits (its address pin low); it answers at ``possibleAddresses``' other too.
    package let usualAddress: I2CAddress
    /// Where it sits with its address pin high: the next address for most chips.
    let alternateAddress: I2CAddress
    /// The separate magnetometer it usually comes with on hobby boards; nil for a chip with its
    /// own (inside its package, or its magnetometer die).
    package let usualMagnetometer: SimulatedBoard.Magnetometer?
    /// The rate fresh sensor noise is drawn at, Hz (held in between): the output data rate the
    /// library's driver sets by default (ST LSM6 208 Hz, LSM9DS1 119 Hz, InvenSense MPU,
    /// ICM-42688-P and Bosch 200 Hz, ICM-20948 220 Hz, BNO055 100 Hz, the rate its fusion mode fixes).
    package let noiseSampleRate: Double
    /// The chip's datasheet error model (``IMUErrorModel``); nil where none was written (the
    /// simulation then takes the LSM6DSOX's).
    package let errorModel: IMUErrorModel?
    /// Other names board files and the CLI give the chip: lower case, letters and digits.
    package let aliases: [String]
    /// The name (lower case) of the magnetometer inside the chip's package, reachable once the
    /// driver opens the I2C bypass (`ak8975`, `ak8963`, `ak09916`), or of its own magnetometer at
    /// the same address (`bno055`); nil for a chip without one.
    package let builtInMagnetometer: String?
    /// The chip's magnetometer die at an address of its own, with another chip's register map.
    package let magnetometerDie: MagnetometerDie?
    /// True for a chip that calibrates its magnetometer itself and whose fusion output is modelled
    /// converged (the BNO055, CALIB_STAT): its magnetometer is simulated calibrated (noise only), so
    /// the chip's attitude and this library's can be compared without a figure-eight.
    package let calibratesMagnetometer: Bool

    init(
        _ chip: SimulatedBoard.IMU, _ emulator: any ChipEmulator.Type, at usualAddress: UInt8, alternate: UInt8? = nil,
        magnetometer usualMagnetometer: SimulatedBoard.Magnetometer? = nil, noiseRate: Double, errors: IMUErrorModel? = nil,
        aliases: [String] = [], builtIn: String? = nil, magnetometerDie: MagnetometerDie? = nil, calibratesMagnetometer: Bool = false
    ) {
        self.chip = chip
        self.emulator = emulator
        self.usualAddress = I2CAddress(usualAddress)
        self.alternateAddress = I2CAddress(alternate ?? usualAddress + 1)
        self.usualMagnetometer = usualMagnetometer ?? magnetometerDie?.registers
        self.noiseSampleRate = noiseRate
        self.errorModel = errors
        self.aliases = aliases
        self.builtInMagnetometer = builtIn
        self.magnetometerDie = magnetometerDie
        self.calibratesMagnetometer = calibratesMagnetometer
    }

    /// The addresses the chip can answer at (its address pin low, high).
    package var possibleAddresses: [I2CAddress] { [usualAddress, alternateAddress] }

    /// Whether `name` (lower case) names this chip.
    func isNamed(_ name: String) -> Bool { name == chip.rawValue || aliases.contains(name) }
}

/// A magnetometer die that answers at its own address with another chip's register map and
/// identity, in axes of its own: the LSM9DS1's (the LIS3MDL's map, its x axis reversed).
package struct MagnetometerDie: Sendable {
    /// The magnetometer whose register map it has.
    package let registers: SimulatedBoard.Magnetometer
    /// What the die senses, from what the package senses.
    let source: @Sendable (any PhysicalSource) -> any PhysicalSource

    /// The LSM9DS1's magnetometer (DocID025715: the LIS3MDL's register map; its own axes).
    static let lsm9ds1 = MagnetometerDie(registers: .lis3mdl) { MagnetometerDieSource.lsm9ds1Magnetometer($0) }
}

/// One separate magnetometer the simulator emulates.
package struct MagnetometerEmulatorEntry: Sendable {
    package let chip: SimulatedBoard.Magnetometer
    package let emulator: any ChipEmulator.Type
    /// The addresses the chip can answer at, the usual one first.
    package let possibleAddresses: [I2CAddress]
    /// The chip's datasheet error model; nil where none was written (the simulation then takes
    /// the LIS3MDL's).
    package let errorModel: MagnetometerErrorModel?

    init(_ chip: SimulatedBoard.Magnetometer, _ emulator: any ChipEmulator.Type, at addresses: [UInt8], errors: MagnetometerErrorModel? = nil) {
        self.chip = chip
        self.emulator = emulator
        self.possibleAddresses = addresses.map { I2CAddress($0) }
        self.errorModel = errors
    }

    package var usualAddress: I2CAddress { possibleAddresses[0] }
}

extension SimulatedBoard.IMU {
    /// The chip's line in ``EmulatorRegistry/imus``.
    package var entry: IMUEmulatorEntry { EmulatorRegistry.entry(self) }

    /// The chip a CLI or board-file name gives (its raw value or an alias, case ignored); nil otherwise.
    package init?(name: String) {
        let key = name.lowercased()
        guard let entry = EmulatorRegistry.imus.first(where: { $0.isNamed(key) }) else { return nil }
        self = entry.chip
    }

    /// Where the chip usually sits (SA0/AD0 low).
    package var usualAddress: I2CAddress { entry.usualAddress }
    /// The addresses the chip can answer at (its address pin low, high).
    package var possibleAddresses: [I2CAddress] { entry.possibleAddresses }
    /// The magnetometer this IMU usually comes with on hobby boards; nil for the MPU-9150,
    /// MPU-9250 and ICM-20948, whose AK8975, AK8963 or AK09916 is inside the package, and the
    /// BNO055, whose magnetometer is part of the chip. The LSM9DS1's is its own die, with the
    /// LIS3MDL's registers and identity.
    package var usualMagnetometer: SimulatedBoard.Magnetometer? { entry.usualMagnetometer }
}

extension SimulatedBoard.Magnetometer {
    /// The chip's line in ``EmulatorRegistry/magnetometers``.
    package var entry: MagnetometerEmulatorEntry { EmulatorRegistry.entry(self) }

    /// The magnetometer a CLI or board-file name gives: its raw value, or the name of an IMU whose
    /// magnetometer die has its register map (`lsm9ds1` → LIS3MDL), case ignored; nil otherwise.
    package init?(name: String) {
        let key = name.lowercased()
        if let chip = Self(rawValue: key) {
            self = chip
        } else if let die = EmulatorRegistry.imus.first(where: { $0.chip.rawValue == key })?.magnetometerDie {
            self = die.registers
        } else {
            return nil
        }
    }

    package var usualAddress: I2CAddress { entry.usualAddress }
    /// The addresses the chip can answer at: the LIS3MDL's SA1 picks 0x1C or 0x1E, the others have one.
    package var possibleAddresses: [I2CAddress] { entry.possibleAddresses }
}
