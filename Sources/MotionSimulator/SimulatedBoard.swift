import I2C

/// A simulated board: a ``SimulatedBus`` carrying an IMU emulator, a magnetometer emulator and,
/// when asked (the built-in simulated board asks for a BMP280 at 0x76), a barometer, at their
/// usual addresses, all fed from one ``PhysicalSource`` (each chip reads it in its own axes; the
/// barometer its pressure).
///
/// The default is an LSM6DSOX at 0x6A with a LIS3MDL at 0x1C. `--imu lsm9ds1` is the Sense HAT:
/// an LSM9DS1 at 0x6A with its magnetometer (a LIS3MDL register map) at 0x1C. `motionctl --imu mpu6050` maps to
/// `SimulatedBoard(imu: .mpu6050, …)`, which pairs it with a QMC5883L at 0x0D (so do `bmi160` and
/// `icm42688`, an ICM-42688-P at 0x68); an MPU-9150 brings its own AK8975 at 0x0C, an MPU-9250 its AK8963 and an ICM-20948
/// its own AK09916 there, each reachable once the driver enables the I2C bypass. A BNO055 sits at 0x28
/// and brings its own magnetometer inside the same chip, at the same address (no separate one).
///
/// The emulators can also be built and attached one by one; each takes
/// `(source:now:options:)`: ``LSM6DSOXEmulator``, ``LSM6DSO32Emulator``, ``LSM6DSLEmulator``,
/// ``LSM6DS3Emulator``, ``LSM9DS1Emulator``, ``MPU6050Emulator``, ``MPU6500Emulator``, ``MPU9150Emulator`` and ``MPU9250Emulator`` (use their
/// `attach(to:at:)`), ``ICM20948Emulator`` (likewise), ``BMI160Emulator``, ``ICM42688Emulator``, ``AK8975Emulator``, ``AK8963Emulator``,
/// ``AK09916Emulator``, ``BNO055Emulator``, ``LIS3MDLEmulator``, ``LIS2MDLEmulator``,
/// ``QMC5883LEmulator``, ``HMC5883LEmulator``; the barometer ``BMP280Emulator`` takes
/// `(source:now:noiseSeed:)`.
///
/// Time: output registers follow the source at `now()` while a sensor runs; data-ready flags and
/// FIFO frames come at the output-data-rate ticks of the chip's own clock (with
/// ``EmulatorOptions/clockDriftPPM``), so a read after a long pause finds every frame due, up to
/// the FIFO's size. Not emulated: block-data-update latching (a single burst read is always
/// coherent), digital filters and noise (add them in the ``PhysicalSource``), interrupt pins,
/// embedded functions, and the MPU-9250's I2C master.
public struct SimulatedBoard: Sendable {
    /// Which separate magnetometer to attach.
    public enum MagnetometerChoice: Sendable, Equatable {
        /// The IMU's ``IMU/usualMagnetometer``.
        case usual
        /// No separate magnetometer (an MPU-9250 still has its AK8963, an ICM-20948 its AK09916).
        case none
        case chip(Magnetometer)

        /// Parses a CLI name: a ``Magnetometer`` name (``Magnetometer/init(name:)``: its raw value,
        /// or `lsm9ds1` — the LSM9DS1's own magnetometer die, which has the LIS3MDL's register map;
        /// next to the LSM9DS1 as IMU, the board reverses its x axis as the die does), `none`,
        /// `usual`; nil otherwise.
        package init?(name: String) {
            switch name.lowercased() {
            case "usual": self = .usual
            case "none": self = .none
            default:
                guard let chip = Magnetometer(name: name) else { return nil }
                self = .chip(chip)
            }
        }
    }

    /// One chip on the board.
    package struct Chip: Sendable {
        package var address: I2CAddress
        package var device: any SimulatedDevice
        /// True for the MPU-9150's AK8975, the MPU-9250's AK8963 and the ICM-20948's AK09916: they answer only with the
        /// I2C bypass enabled.
        package var behindBypass: Bool
    }

    /// The names `--imu` lists, from ``EmulatorRegistry/imus``.
    package static var imuChoices: [String] { EmulatorRegistry.imus.map(\.chip.rawValue) }
    /// The other names `--imu` accepts, each with the chip it names: `ism330dhcx = lsm6dsr`.
    package static var imuAliases: [String] {
        EmulatorRegistry.imus.flatMap { entry in entry.aliases.map { "\($0) = \(entry.chip.rawValue)" } }
    }
    /// The names `--magnetometer` accepts: the separate magnetometers of
    /// ``EmulatorRegistry/magnetometers``, the IMUs whose magnetometer die answers apart
    /// (`lsm9ds1`), `none` and `usual`.
    package static var magnetometerChoices: [String] {
        EmulatorRegistry.magnetometers.map(\.chip.rawValue)
            + EmulatorRegistry.imus.filter { $0.magnetometerDie != nil }.map(\.chip.rawValue) + ["none", "usual"]
    }

    package let bus: SimulatedBus
    package let imu: any SimulatedDevice
    package let imuAddress: I2CAddress
    /// The IMU's SPI device when the board was told it sits on SPI (then it is not on ``bus``).
    package let imuSPI: SimulatedSPIBus?
    /// The separate magnetometer, or the built-in one (MPU-9250, ICM-20948) when there is none.
    package let magnetometer: (any SimulatedDevice)?
    package let magnetometerAddress: I2CAddress?
    /// The barometer (the built-in simulated board's BMP280 at 0x76), nil on a board without one.
    package let barometer: (any SimulatedDevice)?
    package let barometerAddress: I2CAddress?
    /// Every chip attached, in address order.
    package let chips: [Chip]

    /// - Parameters:
    ///   - imu: which IMU emulator; at `imuAddress` or its usual address.
    ///   - magnetometer: which separate magnetometer; at `magnetometerAddress` or its usual address.
    ///   - source: what the chips experience (each reads it as its own axes).
    ///   - now: simulation time in seconds (a `VirtualClock`'s `now` in tests).
    ///   - imuOptions, magnetometerOptions: clock drift and dead axes of each chip.
    ///   - barometer: which barometer, at `barometerAddress` or its usual address; nil for none
    ///     (the built-in simulated board, ``SimulationSettings``, carries a BMP280).
    ///     It measures the source's pressure, with its datasheet noise from `barometerNoiseSeed`
    ///     (nil: quantisation only).
    ///   - imuSPIDevice: the name of the SPI device the IMU sits behind instead of the I2C bus
    ///     (`/dev/spidev0.0`); for an IMU without an emulated SPI interface
    ///     (``SPIEmulator``) it stays on the I2C bus.
    package init(
        imu: IMU = .lsm6dsox, imuAddress: I2CAddress? = nil,
        magnetometer: MagnetometerChoice = .usual, magnetometerAddress: I2CAddress? = nil,
        barometer: Barometer? = nil, barometerAddress: I2CAddress? = nil, barometerNoiseSeed: UInt64? = nil,
        source: any PhysicalSource, now: @escaping @Sendable () -> Double,
        imuOptions: EmulatorOptions = .init(), magnetometerOptions: EmulatorOptions = .init(),
        busName: String = "simulated", imuSPIDevice: String? = nil
    ) {
        let bus = SimulatedBus(name: busName, now: now)
        let address = imuAddress ?? imu.usualAddress
        var chips: [Chip] = []
        var builtInMagnetometer: (any SimulatedDevice)?

        let imuType = imu.entry.emulator
        let imuDevice: any SimulatedDevice = imuType.init(source: source, now: now, options: imuOptions)
        if let package = imuDevice as? any NineAxisPackage {
            package.attach(to: bus, at: address)
            builtInMagnetometer = package.magnetometer
            chips.append(Chip(address: type(of: package).magnetometerAddress, device: package.magnetometer, behindBypass: true))
        }
        let spi = imuSPIDevice.flatMap { SimulatedSPIBus(name: $0, emulator: imuDevice) }
        if builtInMagnetometer == nil, spi == nil { bus.attach(imuDevice, at: address) }
        if spi == nil { chips.append(Chip(address: address, device: imuDevice, behindBypass: false)) }

        let chosen: Magnetometer? = switch magnetometer {
        case .usual: imu.usualMagnetometer
        case .none: nil
        case .chip(let chip): chip
        }
        if let chosen {
            let deviceType = chosen.entry.emulator
            // Next to an IMU whose magnetometer die has this register map (a LIS3MDL map next to an
            // LSM9DS1), the chip is that die, in its own axes.
            let die = imu.entry.magnetometerDie.flatMap { $0.registers == chosen ? $0 : nil }
            let dieSource: any PhysicalSource = die.map { $0.source(source) } ?? source
            let device: any SimulatedDevice = deviceType.init(source: dieSource, now: now, options: magnetometerOptions)
            let address = magnetometerAddress ?? chosen.usualAddress
            bus.attach(device, at: address)
            chips.append(Chip(address: address, device: device, behindBypass: false))
            self.magnetometer = device
            self.magnetometerAddress = address
        } else {
            self.magnetometer = builtInMagnetometer
            self.magnetometerAddress = (imuDevice as? any NineAxisPackage).map { type(of: $0).magnetometerAddress }
        }
        if let barometer {
            let device = barometer.entry.make(source, now, barometerNoiseSeed)
            let address = barometerAddress ?? barometer.entry.usualAddress
            bus.attach(device, at: address)
            chips.append(Chip(address: address, device: device, behindBypass: false))
            self.barometer = device
            self.barometerAddress = address
        } else {
            self.barometer = nil
            self.barometerAddress = nil
        }
        self.bus = bus
        self.imu = imuDevice
        self.imuAddress = address
        self.imuSPI = spi
        self.chips = chips.sorted { $0.address < $1.address }
    }
}
