import Fusion
import I2C
import Sensors

/// Finds the IMU and magnetometer a board says sit on a bus, builds their drivers, configures
/// them and loads their stored calibrations.
enum DeviceOpener {
    /// Where the IMU is looked for: the board's addresses on an I2C bus, or an SPI device.
    enum IMUBus {
        case i2c(any I2CBus)
        case spi(any SPIBus)
    }

    /// The IMU and magnetometer on one I2C bus: ``open(imu:magnetometerBus:board:store:pause:lsm6dso32:)``.
    static func open(
        bus: any I2CBus, board: Board, store: CalibrationStore?, pause: Pause = .system, lsm6dso32: Bool = false
    ) throws(MotionError) -> DriverDevice {
        try open(imu: .i2c(bus), magnetometerBus: bus, board: board, store: store, pause: pause, lsm6dso32: lsm6dso32)
    }

    /// - Parameters:
    ///   - imu: where the IMU is: at the board's IMU addresses on an I2C bus, or behind an SPI
    ///     device (identified through the registry's SPI framings, ``ChipCatalog/identify(spi:lsm6dso32:pause:among:)``).
    ///   - magnetometerBus: the I2C bus the board's magnetometer addresses are on; nil for none.
    ///   - pause: how resets wait (`.none` on the simulator and in virtual time).
    ///   - store: where calibrations live; nil to ignore them.
    ///   - lsm6dso32: WHO_AM_I 0x6C is both an LSM6DSO(X) and an LSM6DSO32 (±32 g): only the
    ///     board can say which (this, or the board file's `imuChip`).
    static func open(
        imu place: IMUBus, magnetometerBus: (any I2CBus)?, board: Board, store: CalibrationStore?, pause: Pause = .system,
        lsm6dso32: Bool = false
    ) throws(MotionError) -> DriverDevice {
        // Or the board file says so (`"imuChip": "LSM6DSO32"`).
        let named = board.imuChip.map { $0.uppercased().filter { $0 != "-" } == "LSM6DSO32" } ?? false
        let (imu, imuBus) = try retrying(pause: pause) { () throws(MotionError) in
            let (imu, imuBus) = try findIMU(place, board: board, pause: pause, lsm6dso32: lsm6dso32 || named)
            try DriverDevice.mapping { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
            return (imu, imuBus)
        }
        // After the IMU is configured: the AK8975 of an MPU-9150, the AK8963 of an MPU-9250 and the
        // AK09916 of an ICM-20948 only answer with the bypass enabled. A magnetometer that is part
        // of the IMU's chip comes from its driver.
        // A magnetometer found nowhere is looked for again too: one that missed a transfer at
        // start-up would leave the device without a field for the whole run.
        let companion = imu.companionMagnetometer
        var magnetometer = companion
        do throws(MotionError) {
            if companion == nil, board.magnetometerAddresses.isEmpty || magnetometerBus == nil { throw .deviceNotFound("no magnetometer listed") }
            magnetometer = try retrying(pause: pause) { () throws(MotionError) -> any MagnetometerDriver in
                let found: (any MagnetometerDriver)?
                if let companion {
                    found = companion
                } else if let magnetometerBus {
                    found = try findMagnetometer(bus: magnetometerBus, board: board, pause: pause, imu: imu.chip.name)
                } else {
                    found = nil
                }
                guard let found else { throw .deviceNotFound("no magnetometer") }
                try DriverDevice.mapping { () throws(SensorError) in try found.configure(found.defaultConfiguration) }
                return found
            }
        } catch {
            // None at the board's addresses (or none listed): a device without a magnetometer.
            guard case .deviceNotFound = error else { throw error }
        }
        // A magnetometer inside the IMU's package is read on the IMU's bus.
        let fieldBus: any I2CBus = companion == nil ? magnetometerBus ?? imuBus : imuBus
        let magnetometerRecord = try magnetometer.flatMap { magnetometer throws(MotionError) in try load(store, board: board, bus: fieldBus, chip: magnetometer.chip) }
        var correction = SensorCorrection(
            mount: board.mountMatrix, imu: try load(store, board: board, bus: imuBus, chip: imu.chip), magnetometer: magnetometerRecord)
        // The magnetometer die inside a 9-axis package has its own axes (its IMU's descriptor says how).
        if let packaged = imu.chip.descriptor?.packagedMagnetometer, let magnetometer,
           ChipRegistry.descriptor(named: packaged.chip)?.family == magnetometer.chip.family {
            correction.magnetometerAxes = Matrix3(rows: packaged.axes.x, packaged.axes.y, packaged.axes.z)
        }
        let magnetometerIdentity = magnetometer.map { identity(board: board, bus: fieldBus, chip: $0.chip) }
        return DriverDevice(
            imu: imu, magnetometer: magnetometer, correction: correction, busName: imuBus.name,
            imuIdentity: identity(board: board, bus: imuBus, chip: imu.chip), magnetometerIdentity: magnetometerIdentity,
            backgroundCalibration: magnetometerIdentity.map {
                BackgroundCalibration(
                    record: magnetometerRecord, store: store, sensor: $0, correction: correction,
                    magnetometerRate: magnetometer?.configuration.outputDataRate)
            })
    }

    /// How many times start-up tries each chip, and the pause before the second try (doubled
    /// before each next): a chip that misses a transfer or two while the board powers up is tried
    /// again, as the sampler retries a failed transfer; one that never answers still ends in
    /// "device not found … check the wiring" (about 30 ms later).
    static let startUpAttempts = 3
    static let startUpBackoff = Duration.milliseconds(10)

    /// `body` again after a failure a retry may cure (no acknowledge, bus error, timeout; a chip
    /// not found), up to ``startUpAttempts`` in all; the last failure as it is.
    private static func retrying<Value>(pause: Pause, _ body: () throws(MotionError) -> Value) throws(MotionError) -> Value {
        var wait = startUpBackoff
        for _ in 1..<startUpAttempts {
            do {
                return try body()
            } catch {
                guard isTransient(error) else { throw error }
                pause.wait(wait)
                wait *= 2
            }
        }
        return try body()
    }

    private static func isTransient(_ error: MotionError) -> Bool {
        switch error {
        case .deviceNotFound: true
        case .bus(let busError), .deviceUnavailable(let busError): [.noAcknowledge, .busError, .timeout].contains(busError.kind)
        default: false
        }
    }

    static func identity(board: Board, bus: any I2CBus, chip: ChipInfo) -> SensorIdentity {
        SensorIdentity(board: board.id, chip: chip.name, bus: bus.name, address: chip.address.rawValue)
    }

    private static func load(_ store: CalibrationStore?, board: Board, bus: any I2CBus, chip: ChipInfo) throws(MotionError) -> CalibrationRecord? {
        guard let store else { return nil }
        do {
            return try store.load(identity(board: board, bus: bus, chip: chip))
        } catch {
            throw .calibrationNeeded(error.description)
        }
    }

    /// The IMU's driver and the bus it runs on.
    private static func findIMU(_ place: IMUBus, board: Board, pause: Pause, lsm6dso32: Bool) throws(MotionError) -> (any IMUDriver, any I2CBus) {
        switch place {
        case .i2c(let bus):
            return (try findIMU(bus: bus, board: board, pause: pause, lsm6dso32: lsm6dso32), bus)
        case .spi(let device):
            let found = try DriverDevice.mapping { () throws(SensorError) in
                try ChipCatalog.identify(spi: device, lsm6dso32: lsm6dso32, pause: pause)
            }
            if let (chip, bus) = found, let driver = ChipCatalog.makeIMU(for: chip, bus: bus, pause: pause) { return (driver, bus) }
            let chips = ChipRegistry.imus.filter { $0.spi != nil }.map(\.name).joined(separator: ", ")
            throw .deviceNotFound(
                "no supported IMU answers on \(device.name); the IMUs this library drives on SPI are \(chips): check the wiring "
                    + "(SCLK, MOSI, MISO, the chip select) and that the chip's CS pin goes to this device's chip select")
        }
    }

    private static func findIMU(bus: any I2CBus, board: Board, pause: Pause, lsm6dso32: Bool) throws(MotionError) -> any IMUDriver {
        for address in board.imuAddresses {
            let chip = try DriverDevice.mapping { () throws(SensorError) in
                try ChipCatalog.identify(bus: bus, address: address, lsm6dso32: lsm6dso32, pause: pause)
            }
            if let chip, chip.isIMU, let driver = ChipCatalog.makeIMU(for: chip, bus: bus, pause: pause) { return driver }
        }
        let tried = board.imuAddresses.map(\.description).joined(separator: ", ")
        throw .deviceNotFound("no supported IMU at \(tried) on \(bus.name); check the wiring, then run `motionctl probe --bus \(bus.name)`")
    }

    /// - Parameter imu: the IMU found: the AK at 0x0C inside an MPU-9150 is an AK8975.
    private static func findMagnetometer(bus: any I2CBus, board: Board, pause: Pause, imu: String) throws(MotionError) -> (any MagnetometerDriver)? {
        for address in board.magnetometerAddresses {
            let chip = try DriverDevice.mapping { () throws(SensorError) in
                try ChipCatalog.identify(bus: bus, address: address, insidePackageOf: imu, pause: pause)
            }
            if let chip, !chip.isIMU, let driver = ChipCatalog.makeMagnetometer(for: chip, bus: bus, pause: pause) { return driver }
        }
        return nil
    }
}
