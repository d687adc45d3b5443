/// What a kernel driver's attributes can plausibly say, checked as board files are checked: a
/// value outside these bounds is `IIOError.badValue` naming the file, the value and the bound,
/// instead of readings that are all zero, all NaN or turned about a wrong axis.
///
/// The bounds hold for every motion sensor the kernel supports, with room to spare; they catch a
/// broken driver, a hand-made tree or a `--iio-root` pointing at the wrong place.
package enum IIOPlausibility {
    /// The widest full scale of a motion sensor of each kind, in kernel units (m/s², rad/s,
    /// gauss): ±200 g (ADXL375 datasheet rev. B, "±200 g"), ±4000 °/s (ICM-42686-P, the widest
    /// MEMS gyroscope range), ±100 gauss (10 mT; AK8963 ±4912 µT, LIS3MDL ±16 gauss) — each ×10.
    package static func widestRange(_ kind: IIOSensorKind) -> Double {
        switch kind {
        case .accelerometer: 200 * 9.80665 * 10
        case .gyroscope: 4000 * Double.pi / 180 * 10
        case .magnetometer: 100 * 10
        }
    }

    /// The narrowest full scale a channel can have, in kernel units: one count times the largest
    /// raw value of a 32-bit channel (2³¹) must reach at least this (0.1 g, 1 °/s, 0.01 gauss),
    /// else every reading is as good as zero.
    package static func narrowestRange(_ kind: IIOSensorKind) -> Double {
        switch kind {
        case .accelerometer: 0.1 * 9.80665
        case .gyroscope: Double.pi / 180
        case .magnetometer: 0.01
        }
    }

    /// Hz: no motion sensor samples faster (the fastest output data rate of the supported chips is
    /// 32 kHz, ICM-42688-P datasheet rev 1.8 §14.6; ×3 for room).
    package static let maximumSamplingFrequency = 100_000.0

    /// Largest deviation of a mount matrix's M·Mᵀ from the identity: the kernel's device-tree
    /// matrices are written with a few decimals ("0.7071").
    package static let mountTolerance = 1e-2

    static let largestRaw = 2_147_483_648.0   // 2^31: the largest magnitude of a 32-bit channel

    /// A scale: positive, one count at most the widest full scale, 2³¹ counts at least the narrowest.
    package static func checkScale(_ scale: Double, kind: IIOSensorKind, path: String) throws(IIOError) {
        let lowest = narrowestRange(kind) / largestRaw, highest = widestRange(kind)
        guard scale > 0, scale >= lowest, scale <= highest else {
            throw IIOError(
                .badValue, path: path,
                detail: "scale \(scale) \(kind.unit) per count is implausible for a\(kind == .accelerometer ? "n" : "") \(kind.displayName): it must lie within \(lowest)…\(highest)",
                hint: "the driver or the tree is broken: check the attribute (it should be what the datasheet's sensitivity gives)")
        }
    }

    /// An offset (raw counts, added before the scale): it may shift a reading by at most the
    /// widest full scale, and is at most 2³¹ counts.
    package static func checkOffset(_ offset: Double, scale: Double, kind: IIOSensorKind, path: String) throws(IIOError) {
        guard abs(offset) <= largestRaw, abs(offset * scale) <= widestRange(kind) else {
            throw IIOError(
                .badValue, path: path,
                detail: "offset \(offset) counts (× scale \(scale) = \(offset * scale) \(kind.unit)) must lie within the widest \(kind.displayName) range, ±\(widestRange(kind)) \(kind.unit)",
                hint: "the driver or the tree is broken: check the attribute")
        }
    }

    /// A mount matrix: orthonormal rows within ``mountTolerance`` (a rotation, or a rotation with
    /// a mirror for a left-handed chip); all-zero, huge or shearing matrices are refused.
    package static func checkMount(_ mount: MountMatrix, path: String) throws(IIOError) {
        let rows = [mount.rows.0, mount.rows.1, mount.rows.2]
        var worst = 0.0
        for i in 0..<3 {
            for j in 0..<3 {
                let product = (rows[i] * rows[j]).sum()
                worst = max(worst, abs(product - (i == j ? 1 : 0)))
            }
        }
        guard worst.isFinite, worst <= mountTolerance else {
            throw IIOError(
                .badValue, path: path,
                detail: "mount matrix \"\(mount)\" is not a rotation: its rows must be unit length and at right angles (within \(mountTolerance))",
                hint: "check the device tree's mount-matrix property (Documentation/devicetree/bindings/iio/mount-matrix.txt)")
        }
    }

    /// A sampling frequency in Hz: 0 (none) up to ``maximumSamplingFrequency``.
    package static func checkSamplingFrequency(_ value: Double, path: String) throws(IIOError) {
        guard value >= 0, value <= maximumSamplingFrequency else {
            throw IIOError(
                .badValue, path: path, detail: "sampling frequency \(value) Hz is implausible: it must lie within 0…\(Int(maximumSamplingFrequency)) Hz",
                hint: "the driver or the tree is broken: check the attribute")
        }
    }
}
