import I2C

extension ChipDescriptor {
    /// WIA1 0x48 and WIA2 0x09 from 0x00, at 0x0C (inside the ICM-20948, or on its own). Listed
    /// before the AK8963: one read of 0x00–0x01 tells them apart by WIA2 (the AK8963's 0x01 is
    /// INFO), as Linux ak8975.c does.
    package static let ak09916 = ak(.ak09916)
    /// WIA 0x48 at 0x00, at 0x0C (inside the MPU-9250, or on its own).
    package static let ak8963 = ak(.ak8963)
    /// WIA 0x48 at 0x00 like the AK8963: named only at 0x0C inside an MPU-9150, where it is the
    /// magnetometer (drivers/iio/imu/inv_mpu6050/inv_mpu_magn.c: "MPU9150 is AK8975").
    package static let ak8975 = ak(.ak8975, condition: .insidePackage)

    /// One AKM chip at 0x0C (the address its IMU's bypass puts it at, INV_MPU_MAGN_I2C_ADDR).
    private static func ak(_ model: AKModel, condition: IdentityCondition = .always) -> ChipDescriptor {
        ChipDescriptor(
            magnetometer: model.settings.common, cliNames: [ChipRegistry.key(model.rawValue)], addresses: [I2CAddress(0x0C)],
            condition: condition
        ) { bus, address, pause, resetCompletion in
            AKMagnetometer(bus: bus, address: address, model: model, pause: pause, resetCompletion: resetCompletion)
        }
    }
}
