import Motion
import Fusion

/// A guided six-face accelerometer calibration in progress: watches the readings, notices when
/// the board lies still on a face it has not measured yet, and keeps the mean reading there.
///
/// Still: over the last `window` readings (1 s at 100 Hz) every axis of the acceleration, averaged
/// over tenths of the window, spreads at most `maximumSpread` g (a hand-held board sways ~20 mg;
/// the averaging keeps white noise out: an MPU-6050's 400 µg/√Hz, ~3 mg per reading at 100 Hz,
/// spread past 10 mg on two of the six faces of a simulated run; averaged, ~1 mg) and the
/// rotation rate strays at most `maximumRate` from its mean; on a face: one axis carries at least
/// 0.8 g. The rate is taken about its mean because the gyroscope is not calibrated yet either: an
/// MPU-6050's zero-rate offset is ±20 °/s typical (PS-MPU-6000A §6.1), far above any still
/// threshold, while turning shows as a changing rate (and a changing acceleration).
package struct SixFaceSession: Sendable {
    /// Readings that must be still together (100: 1 s at 100 Hz).
    package let window: Int
    /// g: the largest deviation of any acceleration axis, averaged over a tenth of the window,
    /// from its mean over the window.
    package let maximumSpread: Double
    /// rad/s: the largest deviation of the rotation rate from its mean over the window.
    package let maximumRate: Double
    /// Chip-axes mean reading (g) per face, keyed by the face as the chip sees it (what
    /// `AccelerometerCalibration.fromSixFaces` needs).
    package private(set) var readings: [DeviceOrientation: SIMD3<Double>] = [:]
    /// Faces measured, as the device sees them (for guiding the person).
    package private(set) var measuredDeviceFaces: [DeviceOrientation] = []
    private var recent: [SIMD3<Double>] = []
    private var recentRates: [SIMD3<Double>] = []
    private let imuToDevice: Matrix3
    /// The first reading (averaged over a tenth of the window) of the current still run, and how
    /// many readings in a row stayed within `maximumSpread` of it (for ``status``).
    private var stillAnchor: SIMD3<Double>?
    private var stillRun = 0

    /// What the board is doing now, for live feedback while the person places it.
    package struct Status: Sendable, Equatable {
        /// The device face the board lies on now; nil while no axis carries 0.8 g (tilted).
        package var face: DeviceOrientation?
        /// That face has been measured already (turn to another).
        package var isMeasured: Bool
        /// Readings in a row that stayed still so far; a new face is measured after ``window``.
        package var stillReadings: Int
        /// Readings that must be still together.
        package var window: Int

        /// Still long enough for a face to be measured soon (at least a tenth of the window).
        package var isStill: Bool { stillReadings >= max(1, window / 10) }
    }

    /// The face the board lies on now and how long it has been still.
    package var status: Status {
        let face = recent.last.flatMap { Self.face(of: imuToDevice * $0) }
        return Status(face: face, isMeasured: face.map(measuredDeviceFaces.contains) ?? false, stillReadings: stillRun, window: window)
    }

    /// The order faces are asked for.
    package static let order: [DeviceOrientation] = [.faceUp, .faceDown, .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight]

    package init(imuToDevice: Matrix3 = .identity, window: Int = 100, maximumSpread: Double = 0.01, maximumRate: Double = 0.05) {
        self.imuToDevice = imuToDevice
        self.window = window
        self.maximumSpread = maximumSpread
        self.maximumRate = maximumRate
    }

    /// The face to ask for next (device faces), nil when all six are measured.
    package var nextFace: DeviceOrientation? { Self.order.first { !measuredDeviceFaces.contains($0) } }

    package var isComplete: Bool { nextFace == nil }

    /// Adds readings in chip axes (g; rad/s, may be empty); returns the device faces measured by them.
    package mutating func add(acceleration: [SIMD3<Double>], rotationRate: [SIMD3<Double>]) -> [DeviceOrientation] {
        recentRates = Array((recentRates + rotationRate).suffix(window))
        var measured: [DeviceOrientation] = []
        let turning = recentRates.last.map { Self.magnitude($0 - Self.mean(recentRates)) > maximumRate } ?? false
        for reading in acceleration {
            recent.append(reading)
            if recent.count > window { recent.removeFirst(recent.count - window) }
            let smoothed = Self.mean(recent.suffix(block))
            if let anchor = stillAnchor, !turning, pointwiseMax(smoothed - anchor, anchor - smoothed).max() <= maximumSpread {
                stillRun += 1
            } else {
                stillAnchor = smoothed
                stillRun = 1
            }
            guard recent.count == window, isStill, let face = captureIfNew() else { continue }
            measured.append(face)
        }
        return measured
    }

    /// Readings averaged together before their spread is judged: a tenth of the window.
    private var block: Int { max(1, window / 10) }

    private var isStill: Bool {
        let mean = Self.mean(recent)
        let blockMeans = stride(from: 0, to: recent.count, by: block).map { Self.mean(recent[$0..<min($0 + block, recent.count)]) }
        let spread = blockMeans.reduce(SIMD3<Double>.zero) { pointwiseMax($0, pointwiseMax($1 - mean, mean - $1)) }
        let meanRate = Self.mean(recentRates)
        let rateSpread = recentRates.reduce(0.0) { max($0, Self.magnitude($1 - meanRate)) }
        return spread.max() <= maximumSpread && rateSpread <= maximumRate
    }

    private static func mean<Values: Collection<SIMD3<Double>>>(_ values: Values) -> SIMD3<Double> {
        values.isEmpty ? .zero : values.reduce(.zero, +) / Double(values.count)
    }

    private static func magnitude(_ value: SIMD3<Double>) -> Double { (value * value).sum().squareRoot() }

    private mutating func captureIfNew() -> DeviceOrientation? {
        let mean = Self.mean(recent)
        guard let deviceFace = Self.face(of: imuToDevice * mean), !measuredDeviceFaces.contains(deviceFace),
              let chipFace = Self.face(of: mean) else { return nil }
        readings[chipFace] = mean
        measuredDeviceFaces.append(deviceFace)
        recent.removeAll()
        stillRun = 0
        stillAnchor = nil
        return deviceFace
    }

    /// The face whose gravity points along the dominant axis of `reading` (g), nil when no axis carries 0.8 g.
    static func face(of reading: SIMD3<Double>) -> DeviceOrientation? {
        let magnitudes = pointwiseMax(reading, -reading)
        let axis = magnitudes.x >= magnitudes.y && magnitudes.x >= magnitudes.z ? 0 : magnitudes.y >= magnitudes.z ? 1 : 2
        guard magnitudes[axis] >= 0.8 else { return nil }
        return order.first { $0.gravity?[axis] == (reading[axis] > 0 ? 1 : -1) }
    }
}

extension DeviceOrientation {
    /// How to place the board: "face up (screen to the sky)".
    package var placementHint: String {
        switch self {
        case .faceUp: "flat, face up (top side to the sky)"
        case .faceDown: "flat, face down (top side on the table)"
        case .portrait: "standing on its bottom edge (top edge up)"
        case .portraitUpsideDown: "standing on its top edge (upside down)"
        case .landscapeLeft: "standing on its left edge (right edge up)"
        case .landscapeRight: "standing on its right edge (left edge up)"
        case .unknown: "anyhow"
        }
    }
}
