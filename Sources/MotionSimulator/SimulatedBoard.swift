import I2C

/// A simulated board: a ``SimulatedBus`` carrying an IMU emulator and a magnetometer emulator at
/// their usual addresses, all fed from one ``PhysicalSource`` (each chip reads it in its own axes).
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
/// ``QMC5883LEmulator``, ``HMC5883LEmulator``.
///
/// Time: output registers follow the source at `now()` while a sensor runs; data-ready flags and
/// FIFO frames come at the output-data-rate ticks of the chip's own clock (with
/// ``EmulatorOptions/clockDriftPPM``), so a read after a long pause finds every frame due, up to
/// the FIFO's size. Not emulated: block-data-update latching (a single burst read is always
/// coherent), digital filters and noise (add them in the ``PhysicalSource``), interrupt pins,
/// embedded functions, and the MPU-9250's I2C master.
public struct SimulatedBoard: Sendable {
    /// The IMU chips the simulator can put on the board; the raw value is the CLI name.
    public enum IMU: String, CaseIterable, Sendable {
        /// `lsm6dsr` is the LSM6DSR or the ISM330DHCX (one chip to this library: WHO_AM_I 0x6B, ±4000 dps).
        case lsm6dsox, lsm6dso32, lsm6dsl, lsm6ds3, lsm6dsr, lsm9ds1, mpu6050, mpu6500, mpu9150, mpu9250, icm20948, bmi160, icm42688, bno055

        /// Where the chip usually sits (SA0/AD0 low).
        public var usualAddress: I2CAddress {
            switch self {
            case .lsm6dsox, .lsm6dso32, .lsm6dsl, .lsm6ds3, .lsm6dsr, .lsm9ds1: I2CAddress(0x6A)
            case .mpu6050, .mpu6500, .mpu9150, .mpu9250, .icm20948, .bmi160, .icm42688: I2CAddress(0x68)
            case .bno055: I2CAddress(0x28)
            }
        }

        /// The addresses the chip can answer at (its address pin low, high).
        public var possibleAddresses: [I2CAddress] {
            let low = usualAddress.rawValue
            return [I2CAddress(low), I2CAddress(low + 1)]
        }

        /// The magnetometer this IMU usually comes with on hobby boards; nil for the MPU-9150,
        /// MPU-9250 and ICM-20948, whose AK8975, AK8963 or AK09916 is inside the package, and the
        /// BNO055, whose magnetometer is part of the chip.
        public var usualMagnetometer: Magnetometer? {
            switch self {
            case .lsm6dsox, .lsm6dso32, .lsm6dsl, .lsm6ds3, .lsm6dsr: .lis3mdl
            // The LSM9DS1's magnetometer has the LIS3MDL's registers and identity (0x1C on the Sense HAT).
            case .lsm9ds1: .lis3mdl
            case .mpu6050, .mpu6500, .bmi160, .icm42688: .qmc5883l
            case .mpu9150, .mpu9250, .icm20948, .bno055: nil
            }
        }
    }

    /// The separate magnetometer chips the simulator can put on the board; the raw value is the CLI name.
    public enum Magnetometer: String, CaseIterable, Sendable {
        case lis3mdl, lis2mdl, qmc5883l, hmc5883l

        public var usualAddress: I2CAddress {
            switch self {
            case .lis3mdl: I2CAddress(0x1C)
            case .lis2mdl, .hmc5883l: I2CAddress(0x1E)
            case .qmc5883l: I2CAddress(0x0D)
            }
        }

        /// The addresses the chip can answer at: the LIS3MDL's SA1 picks 0x1C or 0x1E, the
        /// others have one.
        public var possibleAddresses: [I2CAddress] {
            self == .lis3mdl ? [I2CAddress(0x1C), I2CAddress(0x1E)] : [usualAddress]
        }
    }

    /// Which separate magnetometer to attach.
    public enum MagnetometerChoice: Sendable, Equatable {
        /// The IMU's ``IMU/usualMagnetometer``.
        case usual
        /// No separate magnetometer (an MPU-9250 still has its AK8963, an ICM-20948 its AK09916).
        case none
        case chip(Magnetometer)

        /// Parses a CLI name: a ``Magnetometer`` raw value, `none`, `usual`, or `lsm9ds1` — the
        /// LSM9DS1's own magnetometer die, which has the LIS3MDL's register map (next to the
        /// LSM9DS1 as IMU, the board reverses its x axis as the die does); nil otherwise.
        public init?(name: String) {
            switch name.lowercased() {
            case "usual": self = .usual
            case "none": self = .none
            case "lsm9ds1": self = .chip(.lis3mdl)
            default:
                guard let chip = Magnetometer(rawValue: name.lowercased()) else { return nil }
                self = .chip(chip)
            }
        }
    }

    /// One chip on the board.
    public struct Chip: Sendable {
        public var address: I2CAddress
        public var device: any SimulatedDevice
        /// True for the MPU-9150's AK8975, the MPU-9250's AK8963 and the ICM-20948's AK09916: they answer only with the
        /// I2C bypass enabled.
        public var behindBypass: Bool
    }

    /// The names `--imu` accepts.
    public static var imuChoices: [String] { IMU.allCases.map(\.rawValue) }
    /// The names `--magnetometer` accepts.
    public static var magnetometerChoices: [String] { Magnetometer.allCases.map(\.rawValue) + ["lsm9ds1", "none", "usual"] }

    public let bus: SimulatedBus
    public let imu: any SimulatedDevice
    public let imuAddress: I2CAddress
    /// The separate magnetometer, or the built-in one (MPU-9250, ICM-20948) when there is none.
    public let magnetometer: (any SimulatedDevice)?
    public let magnetometerAddress: I2CAddress?
    /// Every chip attached, in address order.
    public let chips: [Chip]

    /// - Parameters:
    ///   - imu: which IMU emulator; at `imuAddress` or its usual address.
    ///   - magnetometer: which separate magnetometer; at `magnetometerAddress` or its usual address.
    ///   - source: what the chips experience (each reads it as its own axes).
    ///   - now: simulation time in seconds (a `VirtualClock`'s `now` in tests).
    ///   - imuOptions, magnetometerOptions: clock drift and dead axes of each chip.
    public init(
        imu: IMU = .lsm6dsox, imuAddress: I2CAddress? = nil,
        magnetometer: MagnetometerChoice = .usual, magnetometerAddress: I2CAddress? = nil,
        source: any PhysicalSource, now: @escaping @Sendable () -> Double,
        imuOptions: EmulatorOptions = .init(), magnetometerOptions: EmulatorOptions = .init(),
        busName: String = "simulated"
    ) {
        let bus = SimulatedBus(name: busName, now: now)
        let address = imuAddress ?? imu.usualAddress
        var chips: [Chip] = []
        var builtInMagnetometer: (any SimulatedDevice)?

        let imuType: any ChipEmulator.Type = switch imu {
        case .lsm6dsox: LSM6DSOXEmulator.self
        case .lsm6dso32: LSM6DSO32Emulator.self
        case .lsm6dsl: LSM6DSLEmulator.self
        case .lsm6ds3: LSM6DS3Emulator.self
        case .lsm6dsr: LSM6DSREmulator.self
        case .lsm9ds1: LSM9DS1Emulator.self
        case .mpu6050: MPU6050Emulator.self
        case .mpu6500: MPU6500Emulator.self
        case .bmi160: BMI160Emulator.self
        case .icm42688: ICM42688Emulator.self
        case .mpu9150: MPU9150Emulator.self
        case .mpu9250: MPU9250Emulator.self
        case .icm20948: ICM20948Emulator.self
        case .bno055: BNO055Emulator.self
        }
        let imuDevice: any SimulatedDevice = imuType.init(source: source, now: now, options: imuOptions)
        if let package = imuDevice as? any NineAxisPackage {
            package.attach(to: bus, at: address)
            builtInMagnetometer = package.magnetometer
            chips.append(Chip(address: type(of: package).magnetometerAddress, device: package.magnetometer, behindBypass: true))
        }
        if builtInMagnetometer == nil { bus.attach(imuDevice, at: address) }
        chips.append(Chip(address: address, device: imuDevice, behindBypass: false))

        let chosen: Magnetometer? = switch magnetometer {
        case .usual: imu.usualMagnetometer
        case .none: nil
        case .chip(let chip): chip
        }
        if let chosen {
            let deviceType: any ChipEmulator.Type = switch chosen {
            case .lis3mdl: LIS3MDLEmulator.self
            case .lis2mdl: LIS2MDLEmulator.self
            case .qmc5883l: QMC5883LEmulator.self
            case .hmc5883l: HMC5883LEmulator.self
            }
            // Next to an LSM9DS1, a LIS3MDL register map is the LSM9DS1's own magnetometer die.
            let dieSource: any PhysicalSource = chosen == .lis3mdl && imu == .lsm9ds1 ? MagnetometerDieSource.lsm9ds1Magnetometer(source) : source
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
        self.bus = bus
        self.imu = imuDevice
        self.imuAddress = address
        self.chips = chips.sorted { $0.address < $1.address }
    }
}
