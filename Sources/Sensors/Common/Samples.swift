import I2C

/// What a probe found: which chip, where, and the identity bytes it read.
package struct ChipInfo: Sendable, Hashable, CustomStringConvertible {
    /// Driver family of a chip: chips of one family share a driver and a register map. Each
    /// family is declared in its chips' folder, beside their settings (`ChipInfo.Family.bmi160`
    /// in `BMI160Settings.swift`); ``ChipRegistry/families`` lists those the registry uses.
    package struct Family: RawRepresentable, Sendable, Hashable {
        /// The family's name: `InvenSense MPU`, `ST LSM6`, `Bosch BMI160`, …
        package let rawValue: String

        package init(rawValue: String) { self.rawValue = rawValue }
    }

    /// Chip name as printed on the package, or the family name when chips share an identity
    /// (e.g. `LSM6DS3TR-C/LSM6DSL/LSM6DSM`).
    package var name: String
    package var family: Family
    package var address: I2CAddress
    /// The identity register value(s) read.
    package var identity: [UInt8]

    package init(name: String, family: Family, address: I2CAddress, identity: [UInt8]) {
        self.name = name
        self.family = family
        self.address = address
        self.identity = identity
    }

    /// True for chips with an accelerometer and gyroscope: those whose descriptor in
    /// ``ChipRegistry`` is an IMU's (the BNO055's magnetometer, named apart, is not).
    package var isIMU: Bool { descriptor?.isIMU ?? false }

    /// The chip's descriptor, found by ``name``; nil for a chip the registry does not know.
    package var descriptor: ChipDescriptor? { ChipRegistry.descriptor(named: name) }

    package var description: String { "\(name) at \(address) (id [\(identity.hexList)])" }
}

/// One accelerometer + gyroscope reading, in chip axes (a board's mount matrix maps them to the
/// device frame).
package struct IMUSample: Sendable, Equatable {
    /// Acceleration in g with Core Motion sign: a chip lying face up at rest reads (0, 0, -1).
    package var acceleration: SIMD3<Double>
    /// Angular rate in rad/s, right-hand rule about the chip axes.
    package var rotationRate: SIMD3<Double>
    /// Die temperature in °C, when read with the sample.
    package var temperature: Double?
    /// True when any accelerometer or gyroscope axis read its full-scale limit.
    package var isSaturated: Bool
    /// The chip's output registers behind this sample; nil for a sample not read from a chip.
    package var raw: RawIMUReading?
    /// The chip's own sensor-fusion orientation read with this sample, for chips that compute one;
    /// nil otherwise.
    package var chipOrientation: ChipOrientation?
}

/// An orientation computed by the chip's own fusion, as a unit quaternion (w, x, y, z) that
/// rotates a vector from the chip's axes into the chip's Earth frame, which drivers deliver as
/// East-North-Up (x magnetic east, y magnetic north, z up): `v_enu = q · v_chip · q*`. The layer
/// that applies the board's mount matrix turns it into a device attitude.
package struct ChipOrientation: Sendable, Equatable {
    /// w, x, y, z.
    package var wxyz: SIMD4<Double>

    package init(wxyz: SIMD4<Double>) { self.wxyz = wxyz }
}

/// An IMU's output registers as read, before any scaling: signed counts in chip axes and the
/// sensitivities of the full scales they were read at.
///
/// acceleration (g, Core Motion sign) = −accelerometer / accelerometerLSBPerG;
/// rotation rate (°/s) = gyroscope / gyroscopeLSBPerDPS.
package struct RawIMUReading: Sendable, Equatable {
    /// Accelerometer counts (the chip's sign: +1 g on z lying face up).
    package var accelerometer: SIMD3<Int16>
    /// Gyroscope counts.
    package var gyroscope: SIMD3<Int16>
    /// Counts per g of the configured accelerometer range.
    package var accelerometerLSBPerG: Double
    /// Counts per °/s of the configured gyroscope range.
    package var gyroscopeLSBPerDPS: Double
}

/// One magnetometer reading in chip axes.
package struct MagneticSample: Sendable, Equatable {
    /// Magnetic flux density in µT.
    package var field: SIMD3<Double>
    /// True when any axis overflowed or read its full-scale limit.
    package var isSaturated: Bool
    /// The chip's output registers behind this sample; nil for a sample not read from a chip.
    package var raw: RawMagneticReading?
}

/// A magnetometer's output registers as read, before any scaling: signed counts in x, y, z
/// order (whatever order the chip sends them in) and the counts per µT of each axis, which
/// include any factory adjustment the driver applies (the AK8963's ASA): field = counts / lsbPerMicrotesla.
package struct RawMagneticReading: Sendable, Equatable {
    /// Signed output counts, chip axes, x, y, z.
    package var counts: SIMD3<Int16>
    /// Counts per µT of each axis (range sensitivity, factory adjustment included).
    package var lsbPerMicrotesla: SIMD3<Double>
}

/// Rate, ranges and filter of an IMU. Every value must be one the chip supports exactly.
package struct IMUConfiguration: Sendable, Equatable {
    /// Output data rate of both sensors in Hz.
    package var outputDataRate: Double
    /// Accelerometer full scale in g (±).
    package var accelerometerRange: Double
    /// Gyroscope full scale in °/s (±).
    package var gyroscopeRange: Double
    /// Digital low-pass bandwidth in Hz; `nil` keeps the chip's default filtering.
    package var lowPassBandwidth: Double?

    package init(outputDataRate: Double, accelerometerRange: Double = 4, gyroscopeRange: Double = 500, lowPassBandwidth: Double? = nil) {
        self.outputDataRate = outputDataRate
        self.accelerometerRange = accelerometerRange
        self.gyroscopeRange = gyroscopeRange
        self.lowPassBandwidth = lowPassBandwidth
    }
}

/// Rate and range of a magnetometer. Every value must be one the chip supports exactly.
package struct MagnetometerConfiguration: Sendable, Equatable {
    /// Output data rate in Hz.
    package var outputDataRate: Double
    /// Full scale in µT (±).
    package var range: Double

    package init(outputDataRate: Double, range: Double) {
        self.outputDataRate = outputDataRate
        self.range = range
    }
}

/// One IMU sample taken from the chip's FIFO.
package struct FIFOFrame: Sendable, Equatable {
    /// Samples since the FIFO was (re)started: the sample was taken at start + index / ODR by the
    /// chip's clock.
    package var sampleIndex: Int
    /// The reading, in chip axes and Core Motion units (as ``IMUDriver/readSample()``).
    package var sample: IMUSample
    /// When the chip took the sample by its own clock, seconds (its timestamp counter times the
    /// counter's nominal LSB), where the chip's FIFO carries timestamps; nil otherwise. Increasing
    /// from frame to frame while the FIFO runs: the driver unwraps the counter between frames. The
    /// origin is the chip's (arbitrary); the counter wraps every ``FIFORead/chipClockWrap`` seconds,
    /// so after a FIFO restart the value may be off from the earlier ones by whole wraps.
    package var chipTime: Double?

    package init(sampleIndex: Int, sample: IMUSample, chipTime: Double? = nil) {
        self.sampleIndex = sampleIndex
        self.sample = sample
        self.chipTime = chipTime
    }
}

/// The whole frames read from the FIFO in one call.
package struct FIFORead: Sendable, Equatable {
    package var frames: [FIFOFrame]
    /// True when the FIFO overflowed since the last read. Samples were lost; the driver emptied and
    /// restarted the FIFO, so later frames count their ``FIFOFrame/sampleIndex`` from 0 again and
    /// the caller re-anchors its clock at this read.
    package var overflowed: Bool
    /// Seconds after which the chip's timestamp counter wraps (``FIFOFrame/chipTime``); nil for a
    /// FIFO without timestamps.
    package var chipClockWrap: Double?
    /// With ``overflowed``: how many frames the chip itself counted as dropped for want of room
    /// (the BMI160's skip frame); 0 where the chip does not count them. A lower bound of the
    /// samples lost: the driver's restart empties the FIFO too.
    package var skippedFrames: Int

    package init(frames: [FIFOFrame], overflowed: Bool, chipClockWrap: Double? = nil, skippedFrames: Int = 0) {
        self.frames = frames
        self.overflowed = overflowed
        self.chipClockWrap = chipClockWrap
        self.skippedFrames = skippedFrames
    }
}

/// The result of a chip self-test: each axis's measured response against the datasheet limits.
package struct SelfTestReport: Sendable, Equatable, CustomStringConvertible {
    package struct Axis: Sendable, Equatable {
        /// e.g. `accelerometer x`.
        package var name: String
        /// The self-test response (unit in ``unit``, or a ratio to the factory value).
        package var response: Double
        package var limits: ClosedRange<Double>
        package var unit: String
        package var passed: Bool { limits.contains(response) }

        package init(name: String, response: Double, limits: ClosedRange<Double>, unit: String) {
            self.name = name
            self.response = response
            self.limits = limits
            self.unit = unit
        }
    }

    package var chip: String
    package var axes: [Axis]
    package var passed: Bool { axes.allSatisfy(\.passed) }

    package init(chip: String, axes: [Axis]) {
        self.chip = chip
        self.axes = axes
    }

    package var description: String {
        let lines = axes.map { axis in
            "\(axis.name): \(axis.response) \(axis.unit) in [\(axis.limits.lowerBound), \(axis.limits.upperBound)]: "
                + (axis.passed ? "pass" : "FAIL")
        }
        return "\(chip) self-test " + (passed ? "passed" : "FAILED") + "\n" + lines.joined(separator: "\n")
    }
}
