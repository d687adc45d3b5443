import I2C

/// Everything this library knows about one chip, in one value: its names, its family, how it says
/// who it is and where it sits, its rate and range tables, its FIFO layout, its datasheet limits at
/// rest, how late its output is, and how its driver is built on a bus. One chip is one descriptor
/// (in the chip's own folder, beside its driver and settings) and one line of ``ChipRegistry/all``;
/// identification, probing, the hardware checks and the CLI read the registry instead of switching
/// on chip names (as Linux `st_lsm6dsx` keeps a chip's whole description in one settings entry).
///
/// The values are the drivers' own: a descriptor refers to its driver's settings tables rather
/// than copying them. Limits and delays carry their datasheet citation.
package struct ChipDescriptor: Sendable {
    /// Builds an accelerometer + gyroscope driver at an address on a bus.
    package typealias IMUFactory = @Sendable (
        _ bus: any I2CBus, _ address: I2CAddress, _ pause: Pause, _ resetCompletion: ResetCompletion
    ) -> any IMUDriver
    /// Builds a magnetometer driver at an address on a bus.
    package typealias MagnetometerFactory = @Sendable (
        _ bus: any I2CBus, _ address: I2CAddress, _ pause: Pause, _ resetCompletion: ResetCompletion
    ) -> any MagnetometerDriver
    /// Builds a barometer driver at an address on a bus.
    package typealias BarometerFactory = @Sendable (_ bus: any I2CBus, _ address: I2CAddress, _ pause: Pause) -> any BarometerDriver

    /// What the chip is to this library, and its driver's factory.
    package enum Kind: Sendable {
        /// An accelerometer + gyroscope (with any magnetometer inside, see ``packagedMagnetometer``).
        case imu(IMUFactory)
        /// A magnetometer on its own address.
        case magnetometer(MagnetometerFactory)
        /// A pressure sensor (``ChipRegistry/barometers``).
        case barometer(BarometerFactory)
    }

    /// The chip's name as ``ChipInfo/name`` carries it: as printed on the package, or the names of
    /// the chips that share one identity and register map (`LSM6DSR/ISM330DHCX`).
    package let name: String
    /// The names `motionctl` (`--imu`, `--magnetometer`) and board files give the chip: lower case,
    /// letters and digits only, the first the usual one. Every register-compatible chip this
    /// descriptor serves has its name here (`lsm6dsr`, `ism330dhcx`).
    package let cliNames: [String]
    package let family: ChipInfo.Family
    package let identity: ChipIdentity
    package let kind: Kind
    /// The driver's rate and range tables.
    let tables: SettingsTables
    /// How samples sit in the chip's FIFO; nil for a chip without one (the BNO055).
    package let fifo: FIFOLayout?
    /// Gyroscope bias and noise at rest from the datasheet; nil where none was taken.
    package let gyroRestLimits: GyroRestLimits?
    /// How far the uncalibrated chip lying face up may read from 1 g by its datasheet, where that
    /// allows more than the hardware checks' usual 3 %; nil otherwise.
    package let gravityRestTolerance: GravityRestTolerance?
    /// How late the gyroscope's output is (what the attitude filter looks ahead by).
    package let outputDelay: OutputDelay
    /// The magnetometer die inside the chip's package that answers at an address of its own, and
    /// how its axes sit in the IMU's; nil for a chip without one. A magnetometer read through the
    /// IMU's own registers (the BNO055's) is the driver's ``IMUDriver/companionMagnetometer`` instead.
    package let packagedMagnetometer: PackagedMagnetometer?
    /// The name of the magnetometer inside the chip's package that answers at its own address once
    /// the IMU's I2C bypass is on (the MPU-9150's AK8975, the MPU-9250's AK8963, the ICM-20948's
    /// AK09916); nil for a chip without one.
    package var builtInMagnetometer: String? {
        packagedMagnetometer.flatMap { $0.behindBypass ? $0.chip : nil }
    }
    /// True for a chip that stretches the I2C clock while it prepares data (the BNO055), which a
    /// controller that does not honour stretching (the Raspberry Pi's) reads wrongly now and then.
    package let stretchesClock: Bool
    /// How the chip frames register access on SPI (``SPIFraming``: its family's read bit, dummy
    /// bytes, interface selection); nil for a chip this library drives on I2C only. A driver runs
    /// unchanged on SPI through `SPIRegisterBus` with this framing.
    package let spi: SPIFraming?
    /// How the chip is wired and what trips people up, as `motionctl doctor` says it once it finds
    /// the chip (its interface-select and address pins, its supply, what it needs after power-up);
    /// nil where there is nothing beyond SDA, SCL, 3.3 V and GND.
    package let wiring: String?

    /// An accelerometer + gyroscope.
    init(
        imu name: String, cliNames: [String], family: ChipInfo.Family, identity: ChipIdentity, tables: IMUTables,
        fifo: FIFOLayout?, gyroRestLimits: GyroRestLimits?, gravityRestTolerance: GravityRestTolerance? = nil,
        outputDelay: OutputDelay, packagedMagnetometer: PackagedMagnetometer? = nil, stretchesClock: Bool = false,
        spi: SPIFraming? = nil, wiring: String? = nil, make: @escaping IMUFactory
    ) {
        self.name = name
        self.cliNames = cliNames
        self.family = family
        self.identity = identity
        self.kind = .imu(make)
        self.tables = .imu(tables)
        self.fifo = fifo
        self.gyroRestLimits = gyroRestLimits
        self.gravityRestTolerance = gravityRestTolerance
        self.outputDelay = outputDelay
        self.packagedMagnetometer = packagedMagnetometer
        self.stretchesClock = stretchesClock
        self.spi = spi
        self.wiring = wiring
    }

    /// A magnetometer: name, family and identity come from its driver's settings table.
    init(
        magnetometer settings: MagnetometerSettings, cliNames: [String], addresses: [I2CAddress],
        condition: IdentityCondition = .always, preamble: IdentityPreamble? = nil, wiring: String? = nil,
        make: @escaping MagnetometerFactory
    ) {
        name = settings.name
        self.cliNames = cliNames
        family = settings.family
        identity = ChipIdentity(
            register: settings.identityRegister, value: settings.identity, addresses: addresses, condition: condition, preamble: preamble)
        kind = .magnetometer(make)
        tables = .magnetometer(settings)
        fifo = nil
        gyroRestLimits = nil
        gravityRestTolerance = nil
        outputDelay = .none(because: "a magnetometer: the attitude filter's look-ahead follows the gyroscope")
        packagedMagnetometer = nil
        stretchesClock = false
        spi = nil
        self.wiring = wiring
    }

    /// A pressure sensor: its identity and factory; no rate or range tables (its settings are
    /// oversampling and filter, ``BarometerConfiguration``).
    init(barometer name: String, cliNames: [String], family: ChipInfo.Family, identity: ChipIdentity, make: @escaping BarometerFactory) {
        self.name = name
        self.cliNames = cliNames
        self.family = family
        self.identity = identity
        kind = .barometer(make)
        tables = .barometer
        fifo = nil
        gyroRestLimits = nil
        gravityRestTolerance = nil
        outputDelay = .none(because: "a barometer: the attitude filter's look-ahead follows the gyroscope")
        packagedMagnetometer = nil
        stretchesClock = false
        spi = nil
        wiring = nil
    }

    /// The barometer driver at `address`; nil for any other chip.
    package func makeBarometer(bus: any I2CBus, address: I2CAddress, pause: Pause = .system) -> (any BarometerDriver)? {
        guard case .barometer(let make) = kind else { return nil }
        return make(bus, address, pause)
    }

    /// True for a magnetometer on its own address.
    package var isMagnetometer: Bool {
        if case .magnetometer = kind { true } else { false }
    }

    /// True for an accelerometer + gyroscope.
    package var isIMU: Bool {
        if case .imu = kind { true } else { false }
    }

    /// The accelerometer + gyroscope driver at `address`; nil for a magnetometer.
    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`).
    package func makeIMU(
        bus: any I2CBus, address: I2CAddress, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit
    ) -> (any IMUDriver)? {
        guard case .imu(let make) = kind else { return nil }
        return make(bus, address, pause, resetCompletion)
    }

    /// The magnetometer driver at `address`; nil for an IMU.
    /// - Parameter resetCompletion: `.fixedDelay` only on a plain register file (`i2c-stub`).
    package func makeMagnetometer(
        bus: any I2CBus, address: I2CAddress, pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit
    ) -> (any MagnetometerDriver)? {
        guard case .magnetometer(let make) = kind else { return nil }
        return make(bus, address, pause, resetCompletion)
    }

    /// The chip as identification reports it at `address`.
    package func chip(at address: I2CAddress) -> ChipInfo {
        ChipInfo(name: name, family: family, address: address, identity: identity.value)
    }

    /// Output data rates the driver accepts, Hz.
    package var outputDataRates: [Double] {
        switch tables {
        case .imu(let tables): tables.outputDataRates.map(\.value)
        case .magnetometer(let settings): settings.outputDataRates.map(\.value)
        case .barometer: []
        }
    }

    /// Accelerometer full scales the driver accepts, ±g; empty for a magnetometer.
    package var accelerometerRanges: [Double] {
        if case .imu(let tables) = tables { tables.accelerometerRanges.map(\.value) } else { [] }
    }

    /// Gyroscope full scales the driver accepts, ±°/s; empty for a magnetometer.
    package var gyroscopeRanges: [Double] {
        if case .imu(let tables) = tables { tables.gyroscopeRanges.map(\.value) } else { [] }
    }

    /// True for an IMU with a gyroscope: false for an accelerometer alone (the ADXL345), whose
    /// gyroscope range table is empty, and for a magnetometer or barometer.
    package var hasGyroscope: Bool { !gyroscopeRanges.isEmpty }

    /// Magnetometer full scales the driver accepts, ±µT; empty for an IMU.
    package var magnetometerRanges: [Double] {
        if case .magnetometer(let settings) = tables { settings.ranges.map(\.value) } else { [] }
    }
}

/// A driver type built from the bus, its address, how it waits and how it learns that a reset
/// finished, and nothing else: one chip per type, so its descriptor names the type.
protocol BusPlacedDriver: ChipDriver {
    init(bus: any I2CBus, address: I2CAddress, pause: Pause, resetCompletion: ResetCompletion)
}

extension ChipDescriptor {
    /// The factory of an IMU driver type that needs nothing but its place on the bus.
    static func factory<Driver: IMUDriver & BusPlacedDriver>(_: Driver.Type) -> IMUFactory {
        { Driver(bus: $0, address: $1, pause: $2, resetCompletion: $3) }
    }

    /// The factory of a magnetometer driver type that needs nothing but its place on the bus.
    static func factory<Driver: MagnetometerDriver & BusPlacedDriver>(_: Driver.Type) -> MagnetometerFactory {
        { Driver(bus: $0, address: $1, pause: $2, resetCompletion: $3) }
    }
}

/// A chip's rate and range tables, as its driver looks them up.
enum SettingsTables: Sendable {
    case imu(IMUTables)
    case magnetometer(MagnetometerSettings)
    case barometer
}

/// How a chip says who it is, and where it answers.
package struct ChipIdentity: Sendable, Equatable {
    /// The register read to identify the chip (WHO_AM_I, CHIP_ID, WIA, …).
    package var register: UInt8
    /// What it reads from there on: one byte for most chips, more where the identity is longer
    /// (the HMC5883L's "H43", the AK09916's WIA1 and WIA2).
    package var value: [UInt8]
    /// The addresses the chip can answer at, the usual one (address pin low) first.
    package var addresses: [I2CAddress]
    /// When an identity read that matches names this chip.
    package var condition: IdentityCondition = .always
    /// What must be written before ``register`` reads right; nil for a chip whose identity reads
    /// right from power-on.
    package var preamble: IdentityPreamble? = nil
}

/// Register writes that wake a chip far enough for its identity register to read right, and how
/// long it needs after them: a chip that powers up asleep with its ID register reading 0 (the
/// Bosch BMM150, datasheet §5.2/§5.5: the power-control bit, 0x4B = 0x01, then about 3 ms before
/// CHIP_ID at 0x40 reads 0x32). Identification writes them, in order, at the chip's address just
/// before reading the identity.
package struct IdentityPreamble: Sendable, Equatable {
    /// (register, value), written in order.
    package var writes: [RegisterWrite]
    /// How long the chip needs after the last write before its identity reads right.
    package var settle: Duration

    package init(writes: [RegisterWrite], settle: Duration) {
        self.writes = writes
        self.settle = settle
    }
}

/// One register write: `value` into `register`.
package struct RegisterWrite: Sendable, Equatable {
    package var register: UInt8
    package var value: UInt8

    package init(register: UInt8, value: UInt8) {
        self.register = register
        self.value = value
    }
}

/// When a matching identity read names a chip. Most chips: always. A few answer exactly as
/// another chip does; then something besides the identity register decides.
package enum IdentityCondition: Sendable, Equatable {
    /// The identity alone names the chip.
    case always
    /// Another chip answers the same and only the board can say which: named only when the caller
    /// names this chip (the LSM6DSO32 beside the LSM6DSO/DSOX, both WHO_AM_I 0x6C).
    case onlyWhenNamed
    /// Named unless the caller names `lookalike`, which answers the same.
    case unlessNamed(lookalike: String)
    /// Answers as another magnetometer (the AK8975 as the AK8963, WIA 0x48): named only where it
    /// sits inside the package of the IMU that names it its ``ChipDescriptor/builtInMagnetometer``,
    /// and there the only candidate.
    case insidePackage
    /// Answers as `lookalike` (the MPU-9150 as the MPU-6050, WHO_AM_I 0x68) and is never read for
    /// directly: once identification finds `lookalike`, it looks for this chip's built-in
    /// magnetometer behind `bypass` (``ChipCatalog``'s only identification that writes).
    case lookalikeWithMagnetometerBehindBypass(of: String, bypass: BypassSwitch)
    /// No identity register (TE's MS5611): named when the eight 16-bit PROM words read at
    /// ``ChipIdentity/register``, +2, … +14 hold their CRC-4 (``MS5611PROM``), as Linux
    /// `ms5611_core.c` accepts the chip. Tried only once no identity register at the address has
    /// named a chip; ``ChipIdentity/value`` is empty.
    case promCRC4
}

/// A magnetometer die in an IMU's package, at an I2C address of its own.
package struct PackagedMagnetometer: Sendable, Equatable {
    /// The magnetometer's name as identification gives it (the LSM9DS1's die answers as the LIS3MDL).
    package var chip: String
    /// True for a die that answers only once the IMU's I2C bypass joins its auxiliary bus to the
    /// host bus (the MPU-9150's AK8975, the MPU-9250's AK8963, the ICM-20948's AK09916); false for
    /// one on the host bus all along (the LSM9DS1's).
    package var behindBypass: Bool
    /// The magnetometer's axes in the IMU's, from the package's datasheet.
    package var axes: AxisMatrix
}

/// A change of axes as a 3×3 matrix by rows: `v_imu = (x · v, y · v, z · v)` for a vector `v` in
/// the magnetometer's axes. Every entry is 0, 1 or −1.
package struct AxisMatrix: Sendable, Equatable {
    package var x: SIMD3<Double>
    package var y: SIMD3<Double>
    package var z: SIMD3<Double>

    package init(_ x: SIMD3<Double>, _ y: SIMD3<Double>, _ z: SIMD3<Double>) {
        (self.x, self.y, self.z) = (x, y, z)
    }
}

/// The register bit that joins an IMU's auxiliary I2C bus, and the magnetometer on it, to the host bus.
package struct BypassSwitch: Sendable, Equatable {
    package var register: UInt8
    package var mask: UInt8
}

/// How samples sit in a chip's FIFO.
package struct FIFOLayout: Sendable, Equatable {
    /// Bytes one accelerometer + gyroscope sample takes in the FIFO, with its header or tag bytes
    /// (a separate timestamp word not counted).
    package var bytesPerSample: Int
    /// The chip's own clock in the FIFO; nil where the FIFO carries no timestamps.
    package var timestamp: FIFOTimestampFormat? = nil
}

/// A chip's timestamp counter as its FIFO carries it.
package struct FIFOTimestampFormat: Sendable, Equatable {
    /// Seconds per count.
    package var lsb: Double
    /// Seconds after which the counter wraps.
    package var wrap: Double
}

/// How long a chip's gyroscope output lags the motion: the group delay of its output low-pass
/// filter (``IMUDriver/outputDelay``, the attitude filter's `sensorLatency`).
package enum OutputDelay: Sendable, Equatable {
    /// Seconds per low-pass filter code the driver writes, from the datasheet's filter table.
    case byLowPassCode([UInt8: Double])
    /// Seconds per output data rate (Hz), for a chip whose filter follows the rate (the
    /// ICM-42688-P's UI filter at its reset bandwidth).
    case byOutputDataRate([Double: Double])
    /// No delay is known: the driver reports 0, for the reason given.
    case none(because: String)
}

/// Gyroscope limits at rest for one chip, from its datasheet.
package struct GyroRestLimits: Sendable, Equatable {
    /// Largest zero-rate output (bias) per axis, °/s.
    package var biasDPS: Double
    /// Rate noise spectral density, °/s/√Hz.
    package var noiseDensityDPS: Double
    /// Where the numbers come from.
    package var source: String

    /// The RMS noise limit at `bandwidth` Hz, °/s: twice density × √bandwidth. The datasheets give
    /// noise as a typical value, not a guaranteed maximum; the factor 2 leaves room for the spread
    /// between parts while still catching a broken or vibrating sensor.
    package func noiseLimit(bandwidth: Double) -> Double { 2 * noiseDensityDPS * bandwidth.squareRoot() }
}

/// How far an uncalibrated chip lying face up may read from 1 g, from its datasheet: the z axis
/// carries gravity, so its zero-g offset tolerance plus the sensitivity tolerance (the x and y
/// offsets add only in quadrature).
package struct GravityRestTolerance: Sendable, Equatable {
    /// Allowed deviation of the gravity magnitude from 1 g, as a fraction.
    package var tolerance: Double
    /// Where the numbers come from.
    package var source: String
}
