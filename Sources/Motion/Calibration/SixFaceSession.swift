import Fusion

/// A guided six-face accelerometer calibration in progress: watches the readings, notices when
/// the board lies still on a face it has not measured yet, and keeps the mean reading there.
///
/// Still: over the last `window` readings (1 s at 100 Hz) every axis of the acceleration spreads
/// at most `maximumSpread` g (a hand-held board spreads ~20 mg, a board on a table ~1 mg) and the
/// rotation rate stays under `maximumRate`; on a face: one axis carries at least 0.8 g.
public struct SixFaceSession: Sendable {
    /// Readings that must be still together (100: 1 s at 100 Hz).
    public let window: Int
    /// g: the largest deviation of any acceleration axis from its mean over the window.
    public let maximumSpread: Double
    /// rad/s: the largest rotation rate magnitude over the window.
    public let maximumRate: Double
    /// Chip-axes mean reading (g) per face, keyed by the face as the chip sees it (what
    /// `AccelerometerCalibration.fromSixFaces` needs).
    public private(set) var readings: [DeviceOrientation: SIMD3<Double>] = [:]
    /// Faces measured, as the device sees them (for guiding the person).
    public private(set) var measuredDeviceFaces: [DeviceOrientation] = []
    private var recent: [SIMD3<Double>] = []
    private var recentRates: [SIMD3<Double>] = []
    private let imuToDevice: Matrix3
    /// The first reading of the current still run, and how many readings in a row stayed within
    /// `maximumSpread` of it (for ``status``).
    private var stillAnchor: SIMD3<Double>?
    private var stillRun = 0

    /// What the board is doing now, for live feedback while the person places it.
    public struct Status: Sendable, Equatable {
        /// The device face the board lies on now; nil while no axis carries 0.8 g (tilted).
        public var face: DeviceOrientation?
        /// That face has been measured already (turn to another).
        public var isMeasured: Bool
        /// Readings in a row that stayed still so far; a new face is measured after ``window``.
        public var stillReadings: Int
        /// Readings that must be still together.
        public var window: Int

        /// Still long enough for a face to be measured soon (at least a tenth of the window).
        public var isStill: Bool { stillReadings >= max(1, window / 10) }
    }

    /// The face the board lies on now and how long it has been still.
    public var status: Status {
        let face = recent.last.flatMap { Self.face(of: imuToDevice * $0) }
        return Status(face: face, isMeasured: face.map(measuredDeviceFaces.contains) ?? false, stillReadings: stillRun, window: window)
    }

    /// The order faces are asked for.
    public static let order: [DeviceOrientation] = [.faceUp, .faceDown, .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight]

    public init(imuToDevice: Matrix3 = .identity, window: Int = 100, maximumSpread: Double = 0.01, maximumRate: Double = 0.05) {
        self.imuToDevice = imuToDevice
        self.window = window
        self.maximumSpread = maximumSpread
        self.maximumRate = maximumRate
    }

    /// The face to ask for next (device faces), nil when all six are measured.
    public var nextFace: DeviceOrientation? { Self.order.first { !measuredDeviceFaces.contains($0) } }

    public var isComplete: Bool { nextFace == nil }

    /// Adds readings in chip axes (g; rad/s, may be empty); returns the device faces measured by them.
    public mutating func add(acceleration: [SIMD3<Double>], rotationRate: [SIMD3<Double>]) -> [DeviceOrientation] {
        recentRates = Array((recentRates + rotationRate).suffix(window))
        var measured: [DeviceOrientation] = []
        let turning = (recentRates.last.map { ($0 * $0).sum().squareRoot() } ?? 0) > maximumRate
        for reading in acceleration {
            if let anchor = stillAnchor, !turning, pointwiseMax(reading - anchor, anchor - reading).max() <= maximumSpread {
                stillRun += 1
            } else {
                stillAnchor = reading
                stillRun = 1
            }
            recent.append(reading)
            if recent.count > window { recent.removeFirst(recent.count - window) }
            guard recent.count == window, isStill, let face = captureIfNew() else { continue }
            measured.append(face)
        }
        return measured
    }

    private var isStill: Bool {
        let mean = recent.reduce(.zero, +) / Double(recent.count)
        let spread = recent.reduce(SIMD3<Double>.zero) { pointwiseMax($0, pointwiseMax($1 - mean, mean - $1)) }
        let rate = recentRates.reduce(0.0) { max($0, ($1 * $1).sum().squareRoot()) }
        return spread.max() <= maximumSpread && rate <= maximumRate
    }

    private mutating func captureIfNew() -> DeviceOrientation? {
        let mean = recent.reduce(.zero, +) / Double(recent.count)
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
    public var placementHint: String {
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
