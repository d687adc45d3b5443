import Fusion
import I2C
import Sensors

/// Finds the IMU and magnetometer a board says sit on a bus, builds their drivers, configures
/// them and loads their stored calibrations.
enum DeviceOpener {
    /// - Parameters:
    ///   - pause: how resets wait (`.none` on the simulator and in virtual time).
    ///   - store: where calibrations live; nil to ignore them.
    ///   - lsm6dso32: WHO_AM_I 0x6C is both an LSM6DSO(X) and an LSM6DSO32 (±32 g): only the
    ///     board can say which (this, or the board file's `imuChip`).
    static func open(
        bus: any I2CBus, board: Board, store: CalibrationStore?, pause: Pause = .system, lsm6dso32: Bool = false
    ) throws(MotionError) -> DriverDevice {
        // Or the board file says so (`"imuChip": "LSM6DSO32"`).
        let named = board.imuChip.map { $0.uppercased().filter { $0 != "-" } == "LSM6DSO32" } ?? false
        let imu = try findIMU(bus: bus, board: board, pause: pause, lsm6dso32: lsm6dso32 || named)
        try DriverDevice.mapping { () throws(SensorError) in try imu.configure(imu.defaultConfiguration) }
        // After the IMU is configured: the AK8975 of an MPU-9150, the AK8963 of an MPU-9250 and the
        // AK09916 of an ICM-20948 only answer with the bypass enabled. A magnetometer that is part
        // of the IMU's chip comes from its driver.
        let magnetometer: (any MagnetometerDriver)?
        if let companion = imu.companionMagnetometer {
            magnetometer = companion
        } else {
            magnetometer = try findMagnetometer(bus: bus, board: board, pause: pause, imu: imu.chip.name)
        }
        if let magnetometer {
            try DriverDevice.mapping { () throws(SensorError) in try magnetometer.configure(magnetometer.defaultConfiguration) }
        }
        let magnetometerRecord = try magnetometer.flatMap { magnetometer throws(MotionError) in try load(store, board: board, bus: bus, chip: magnetometer.chip) }
        var correction = SensorCorrection(
            mount: board.mountMatrix, imu: try load(store, board: board, bus: bus, chip: imu.chip), magnetometer: magnetometerRecord)
        // The magnetometer die inside a 9-axis package has its own axes.
        switch (imu.chip.name, magnetometer?.chip.family) {
        case (InvenSenseModel.mpu9250.rawValue, .ak8963?), (InvenSenseModel.mpu9150.rawValue, .ak8975?):
            correction.magnetometerAxes = SensorCorrection.ak8963InMPU9250
        case (ICM20948IMU.chipName, .ak09916?): correction.magnetometerAxes = SensorCorrection.ak09916InICM20948
        // The LSM9DS1's magnetometer answers with the LIS3MDL's identity.
        case (LSM9DS1IMU.name, .lis3mdl?): correction.magnetometerAxes = SensorCorrection.lsm9ds1Magnetometer
        default: break
        }
        let magnetometerIdentity = magnetometer.map { identity(board: board, bus: bus, chip: $0.chip) }
        return DriverDevice(
            imu: imu, magnetometer: magnetometer, correction: correction, busName: bus.name,
            imuIdentity: identity(board: board, bus: bus, chip: imu.chip), magnetometerIdentity: magnetometerIdentity,
            backgroundCalibration: magnetometerIdentity.map {
                BackgroundCalibration(
                    record: magnetometerRecord, store: store, sensor: $0, correction: correction,
                    magnetometerRate: magnetometer?.configuration.outputDataRate)
            })
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

    private static func findIMU(bus: any I2CBus, board: Board, pause: Pause, lsm6dso32: Bool) throws(MotionError) -> any IMUDriver {
        for address in board.imuAddresses {
            let chip = try DriverDevice.mapping { () throws(SensorError) in
                try ChipCatalog.identify(bus: bus, address: address, lsm6dso32: lsm6dso32)
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
                try ChipCatalog.identify(bus: bus, address: address, insidePackageOf: imu)
            }
            if let chip, !chip.isIMU, let driver = ChipCatalog.makeMagnetometer(for: chip, bus: bus, pause: pause) { return driver }
        }
        return nil
    }
}
