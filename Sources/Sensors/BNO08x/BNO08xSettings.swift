/// A sensor hub that speaks SHTP and SH-2 (CEVA/Hillcrest BNO080, BNO085, BNO086): the IMU and
/// its magnetometer carry this family, told apart by ``ChipInfo/name``.
extension ChipInfo.Family {
    package static let bno08x = Self(rawValue: "CEVA BNO08x")
}

/// What the BNO08x driver looks up: its names, identity, the rates it turns reports on at and
/// the sensors' ranges.
enum BNO08xSettings {
    static let name = "BNO08x"
    /// The magnetometer's name in ``ChipInfo/name``: it answers at the IMU's address, so the
    /// calibration store needs a name of its own for it.
    static let magnetometerName = "BNO08x magnetometer"
    /// What identification reads: the Product ID Response's report ID (1000-3927 Figure 1-29 "Product ID
    /// Response (0xF8)"), the hub's answer to a Product ID Request.
    static let identity: [UInt8] = [SH2Control.productIDResponse]

    /// Sensor ranges (1000-3927 "Sensor specifications"): accelerometer ±8 g, gyroscope
    /// ±2000 °/s, magnetometer ±1300 µT (x, y).
    static let accelerometerRange = 8.0
    static let gyroscopeRange = 2000.0
    static let magnetometerRange = 1300.0
    /// The rates the driver offers for its samples (the calibrated gyroscope's report interval),
    /// Hz; the hub takes any interval, these are the usual ones up to the gyroscope's 400 Hz
    /// (1000-3927 "Sensor specifications": maximum report rates).
    static let outputDataRates: [Double] = [50, 100, 200, 400]
    /// The fastest any report is asked for here, Hz.
    static let fastestRate = 400.0
    /// The magnetometer report at most 100 Hz (1000-3927: the magnetometer's maximum rate).
    static let magnetometerRate = 100.0
    /// The step counter and stability classifier report on change, at most this often, Hz.
    static let activityRate = 10.0

    static let defaultConfiguration = IMUConfiguration(outputDataRate: 100, accelerometerRange: accelerometerRange, gyroscopeRange: gyroscopeRange)

    /// Standard gravity, m/s²: the hub reports acceleration in m/s².
    static let standardGravity = 9.80665
    /// The accelerometer report's counts per g (Q8 m/s²) and the gyroscope's per °/s (Q9 rad/s).
    static let accelerometerLSBPerG = 256 * standardGravity
    static let gyroscopeLSBPerDPS = 512 * Double.pi / 180

    static let tables = IMUTables(
        outputDataRates: outputDataRates.map { SettingOption(value: $0, code: 0) },
        accelerometerRanges: [SettingOption(value: accelerometerRange, code: 0, sensitivity: accelerometerLSBPerG)],
        gyroscopeRanges: [SettingOption(value: gyroscopeRange, code: 0, sensitivity: gyroscopeLSBPerDPS)])

    /// A Set Feature report interval, µs, for `hertz` (> 0).
    static func interval(hertz: Double) -> UInt32 {
        UInt32(clamping: Int((1_000_000 / max(hertz, 1e-3)).rounded()))
    }
}
