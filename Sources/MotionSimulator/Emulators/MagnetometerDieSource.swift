/// What the magnetometer die inside a 9-axis package senses of a source given in the package's
/// (accelerometer and gyroscope) axes: the die's axis i reads the package's axis `axes[i]` times
/// `signs[i]`. The drivers' side undoes it (`SensorCorrection.magnetometerAxes`).
struct MagnetometerDieSource: PhysicalSource {
    let package: any PhysicalSource
    let axes: SIMD3<Int>
    let signs: SIMD3<Double>

    func state(at time: Double) -> PhysicalState {
        var state = package.state(at: time)
        let field = state.magneticField
        state.magneticField = SIMD3(field[axes.x], field[axes.y], field[axes.z]) * signs
        return state
    }

    /// The AK8963 inside an MPU-9250 (PS-MPU-9250A §9.1, orientation of axes): its x along the
    /// package's y, its y along x, its z opposite.
    static func ak8963InMPU9250(_ package: any PhysicalSource) -> Self {
        Self(package: package, axes: SIMD3(1, 0, 2), signs: SIMD3(1, 1, -1))
    }

    /// The AK09916 inside an ICM-20948 (DS-000189 §11.1): its x along the package's x, its y and z
    /// opposite.
    static func ak09916InICM20948(_ package: any PhysicalSource) -> Self {
        Self(package: package, axes: SIMD3(0, 1, 2), signs: SIMD3(1, -1, -1))
    }

    /// The LSM9DS1's magnetometer (LSM9DS1 datasheet DocID025715, figure "Pin indication and axes
    /// directions", p. 10; PX4 DriverFramework pull request 160 applies the same): its x opposite
    /// the accelerometer's, y and z along.
    static func lsm9ds1Magnetometer(_ package: any PhysicalSource) -> Self {
        Self(package: package, axes: SIMD3(0, 1, 2), signs: SIMD3(-1, 1, 1))
    }
}
