/// Sensor fusion as the sampler drives it: one ``update(_:)`` per sample, then the outputs read.
///
/// The sampler makes an estimator (from an ``AttitudeEstimatorFactory``) when it first needs
/// fusion, and a new one whenever the ``AttitudeEstimatorConfiguration`` changes or samples went by
/// that nobody needed fused: a new estimator is the reset, so there is no reset call. The update
/// and the outputs run on the sampler's queue for every sample (up to the chip's FIFO rate, e.g.
/// 1 kHz): they should not allocate, lock or block.
///
/// Frames: the 9D quaternion maps device axes → magnetic East-North-Up (x east, y magnetic north,
/// z up); the 6D quaternion maps device axes → a z-up frame whose heading is arbitrary (it need
/// not use the magnetometer, and may drift). Conformers: ``AttitudeFilter`` (the default),
/// ``MadgwickFilter`` (a reference), ``ChipAttitudeEstimator`` (the chip's own fusion).
public protocol AttitudeEstimator: Sendable {
    /// Takes one sample (see ``AttitudeEstimatorInput`` for units and frames).
    mutating func update(_ input: AttitudeEstimatorInput)
    /// Device → magnetic East-North-Up. Without a magnetometer, a z-up frame of arbitrary heading.
    var quaternion9D: Quaternion { get }
    /// Device → a z-up frame of arbitrary heading (the attitude in ``AttitudeReferenceFrame/xArbitraryZVertical``).
    var quaternion6D: Quaternion { get }
    /// Gravity, g, device axes, Core Motion sign (face up at rest: `(0, 0, -1)`). Default: the
    /// vertical of ``quaternion6D``.
    var gravity: SIMD3<Double> { get }
    /// The running gyroscope bias the estimator has found, rad/s, device axes: removed from the
    /// rotation rate of device motion. Default: zero.
    var gyroBias: SIMD3<Double> { get }
    /// How far the 9D heading can be trusted. Default: `.uncalibrated`.
    var magneticAccuracy: MagneticAccuracy { get }
    /// The magnetometer's calibration changed under the estimator (the sampler's background
    /// hard-iron estimate moved): fields seen so far are not comparable with the next ones, so
    /// a learned reference field should be forgotten and the heading taken afresh. Default: nothing.
    mutating func magneticCalibrationChanged()
}

extension AttitudeEstimator {
    public var gravity: SIMD3<Double> { -quaternion6D.conjugate.rotate(SIMD3(0, 0, 1)) }
    public var gyroBias: SIMD3<Double> { .zero }
    public var magneticAccuracy: MagneticAccuracy { .uncalibrated }
    public mutating func magneticCalibrationChanged() {}
}

/// What an attitude estimator takes for one sample: the sensors in device axes, corrected
/// (calibration applied, mount matrix applied), as the sampler has them.
///
/// Device axes: x to the right, y toward the top edge, z out of the front face.
public struct AttitudeEstimatorInput: Sendable, Equatable {
    /// Acceleration, g, Core Motion sign: lying face up at rest `(0, 0, -1)`, standing in portrait
    /// `(0, -1, 0)` (the opposite of the specific force most chips report).
    public var acceleration: SIMD3<Double>
    /// Rotation rate, rad/s, right-hand rule, with the stored gyroscope calibration removed (a
    /// running bias is the estimator's to find: see ``AttitudeEstimator/gyroBias``).
    public var rotationRate: SIMD3<Double>
    /// Magnetic field, µT: hard and soft iron removed where a calibration is stored, else as
    /// measured; nil when the device has no magnetometer.
    public var magneticField: SIMD3<Double>?
    /// Seconds since the previous sample, from the samples' timestamps (the chip's clock when read
    /// through its FIFO); the nominal ``AttitudeEstimatorConfiguration/sampleInterval`` for the
    /// first sample after a start. After a fault it may span many sample periods.
    public var interval: Double
    /// Device → magnetic East-North-Up from the IMU chip's own sensor fusion (e.g. a BNO055 in
    /// its fusion mode), mount matrix applied; nil for chips without one.
    public var chipOrientation: Quaternion?
    /// The heading σ of ``magneticField`` from its calibration, degrees (the background
    /// calibration's `headingSigma`), for an estimator that says how far its heading may be off
    /// (``AttitudeFilter/headingSigma``); nil when not known.
    package var fieldHeadingSigma: Double?

    public init(
        acceleration: SIMD3<Double>, rotationRate: SIMD3<Double>, magneticField: SIMD3<Double>?, interval: Double,
        chipOrientation: Quaternion? = nil
    ) {
        self.acceleration = acceleration
        self.rotationRate = rotationRate
        self.magneticField = magneticField
        self.interval = interval
        self.chipOrientation = chipOrientation
    }
}

/// Makes the estimator the sampler runs, for the sensors as configured now (see
/// ``AttitudeEstimator``): ``standard`` (this library's filter, the default), ``madgwick(beta:)``,
/// ``chip`` (the chip's own fusion), or your own: `AttitudeEstimatorFactory { MyFilter($0) }`.
public struct AttitudeEstimatorFactory: Sendable {
    private let make: @Sendable (AttitudeEstimatorConfiguration) -> any AttitudeEstimator

    /// Your own estimator: `make` is called with the sample rate and the chip's latency whenever
    /// the sampler starts or its rate changes.
    public init(_ make: @escaping @Sendable (AttitudeEstimatorConfiguration) -> any AttitudeEstimator) {
        self.make = make
    }

    /// This library's filter (gyroscope bias, magnetic disturbance rejection; the default).
    public static var standard: AttitudeEstimatorFactory { AttitudeEstimatorFactory { AttitudeFilter($0) } }

    /// Madgwick's gradient-descent filter with gain `beta` (no bias estimate, no disturbance
    /// rejection): the classic to compare with.
    public static func madgwick(beta: Double = 0.1) -> AttitudeEstimatorFactory {
        AttitudeEstimatorFactory { MadgwickFilter($0, beta: beta) }
    }

    /// The chip's own fusion where it has one (a BNO055's quaternion), through ``AttitudeEstimatorInput/chipOrientation``.
    public static var chip: AttitudeEstimatorFactory { AttitudeEstimatorFactory { ChipAttitudeEstimator($0) } }

    /// A new estimator for `configuration`.
    package func callAsFunction(_ configuration: AttitudeEstimatorConfiguration) -> any AttitudeEstimator {
        make(configuration)
    }
}

/// What the sampler knows about the sensors when it makes an estimator (a new one whenever one of
/// these changes: another sample rate, the chip's output filter set up otherwise).
public struct AttitudeEstimatorConfiguration: Sendable, Equatable {
    /// Nominal seconds between samples: a timer tick, or one period of the chip's FIFO.
    public let sampleInterval: Double
    /// How long the readings lag the motion, s: the group delay of the chip's output low-pass
    /// filter; 0 when unknown (see ``AttitudeFilter/Parameters/sensorLatency``).
    public let sensorLatency: Double
    /// The largest gyroscope offset the estimator may have to find, °/s: the chip's zero-rate
    /// tolerance while its gyroscope is not calibrated (20 °/s for an MPU-6050), else 2 °/s
    /// (see ``AttitudeFilter/Parameters/biasClip``).
    public let gyroscopeBiasRange: Double

    public init(sampleInterval: Double, sensorLatency: Double = 0, gyroscopeBiasRange: Double = 2) {
        self.sampleInterval = sampleInterval
        self.sensorLatency = sensorLatency
        self.gyroscopeBiasRange = gyroscopeBiasRange
    }
}
