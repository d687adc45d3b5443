import FieldCalibration
import Fusion
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The background hard-iron estimator on synthetic readings: a body turning about changing axes in
/// a world-fixed field (Berlin: 49.8 µT, 68° down), an exact gyroscope, 0.4 µT of white noise on
/// the magnetometer, 100 Hz.
@Suite struct HardIronEstimatorTests {
    static let earth = SIMD3<Double>(0, 49.8 * cos(68.3 * .pi / 180), -49.8 * sin(68.3 * .pi / 180))

    /// The samples of a run: `rate(t)` in rad/s (device axes), `extra(t, attitude)` an added field
    /// in device axes (a disturbance), `offset(t)` the hard iron, `softIron` S in m = S·h + b.
    /// `body(t, field, rate, down, dt)` for each, every 10 ms.
    static func forEachSample(
        duration: Double, seed: UInt64 = 1, offset: (Double) -> SIMD3<Double>, softIron: Matrix3 = .identity,
        rate: (Double) -> SIMD3<Double>, extra: (Double, Quaternion) -> SIMD3<Double> = { _, _ in .zero },
        body: (Double, SIMD3<Double>, SIMD3<Double>, SIMD3<Double>, Double) -> Void
    ) {
        var noise = FixedSeedNoise(seed: seed)
        forEachAttitude(duration: duration, rate: rate) { t, attitude, omega, dt in
            let field = softIron * attitude.inverseRotate(earth) + offset(t) + extra(t, attitude) + noise.gaussianVector(0.4)
            body(t, field, omega, attitude.inverseRotate(SIMD3(0, 0, -1)), dt)
        }
    }

    /// A body turning at `rate(t)` (rad/s, device axes) from the identity, every 10 ms:
    /// `body(t, attitude (device → world), rate, dt)`.
    static func forEachAttitude(
        duration: Double, rate: (Double) -> SIMD3<Double>, body: (Double, Quaternion, SIMD3<Double>, Double) -> Void
    ) {
        let dt = 0.01
        var attitude = Quaternion.identity
        var t = 0.0
        while t < duration {
            let omega = rate(t)
            let angle = (omega * omega).sum().squareRoot() * dt
            if angle > 0 { attitude = (attitude * Quaternion(axis: omega, angle: angle)).normalized }
            t += dt
            body(t, attitude, omega, dt)
        }
    }

    /// A run through the estimator; `observe` every `every` seconds. Returns the estimator after
    /// `duration` seconds.
    static func run(
        _ estimator: inout HardIronEstimator, duration: Double, seed: UInt64 = 1,
        offset: (Double) -> SIMD3<Double>, softIron: Matrix3 = .identity, rate: (Double) -> SIMD3<Double>,
        extra: (Double, Quaternion) -> SIMD3<Double> = { _, _ in .zero },
        every: Double = 0, observe: (Double, HardIronEstimator) -> Void = { _, _ in }
    ) {
        var next = 0.0
        forEachSample(duration: duration, seed: seed, offset: offset, softIron: softIron, rate: rate, extra: extra) { t, field, omega, down, dt in
            estimator.update(field: field, rotationRate: omega, acceleration: down, interval: dt)
            if every > 0, t >= next {
                next += every
                observe(t, estimator)
            }
        }
    }

    /// A board's soft iron of a few per cent (the simulator's representative matrix).
    static let softIron = Matrix3(rows: SIMD3(1.04, 0.03, -0.02), SIMD3(0.03, 0.97, 0.015), SIMD3(-0.02, 0.015, 1.01))

    /// Rocked by up to ±30° about x and y, never turned round: the field's directions in the
    /// device cover a cap, never the whole sphere.
    static func cap(_ t: Double) -> SIMD3<Double> {
        SIMD3(0.5 * cos(t), 0.5 * cos(0.7 * t), 0)
    }

    /// Turning at about 60 °/s about an axis that wanders through every direction.
    static func handling(_ t: Double) -> SIMD3<Double> {
        SIMD3(sin(0.9 * t), cos(0.7 * t + 1), sin(0.5 * t + 2)) * 1.0
    }

    static func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

    @Test(arguments: [SIMD3<Double>(30, -20, 45), SIMD3(-48, 5, -12), SIMD3(0, 0, 0)])
    func turningFindsTheOffset(offset: SIMD3<Double>) {
        var estimator = HardIronEstimator()
        #expect(estimator.status.accuracy == .uncalibrated)
        Self.run(&estimator, duration: 30, offset: { _ in offset }, rate: Self.handling)
        let status = estimator.status
        #expect(Self.distance(status.offset, offset) < 0.5, "\(status)")
        #expect(status.offsetAccuracy >= .medium, "\(status)")
        // The soft iron it may not know (8 % by default) keeps the heading's accuracy at `low`
        // in a pose away from the readings its offset was learned from.
        #expect(status.accuracy >= .low, "\(status)")
        #expect(Self.distance(status.offset, offset) < 3 * status.sigma, "the σ covers the error: \(status)")
        #expect(abs(status.fieldStrength - 49.8) < 1, "\(status)")
    }

    /// At rest the offset cannot be told from the Earth's field: nothing is learned, and the
    /// reason says to turn the board.
    @Test func atRestNothingIsLearned() {
        var estimator = HardIronEstimator()
        Self.run(&estimator, duration: 30, offset: { _ in SIMD3(30, -20, 45) }, rate: { _ in .zero })
        let status = estimator.status
        #expect(status.offset == .zero)
        #expect(status.accuracy == .uncalibrated)
        #expect(status.reason == .needsRotation)
    }

    /// A magnet fixed in the world near the board while it turns (the field there is another
    /// constant world field, 40 % stronger): the offset does not move, the status says disturbed.
    @Test func aMagnetNearbyMovesNothing() {
        let offset = SIMD3<Double>(12, -7, 18)
        var estimator = HardIronEstimator()
        Self.run(&estimator, duration: 30, offset: { _ in offset }, rate: Self.handling)
        let learned = estimator.estimate
        var sawDisturbed = false
        Self.run(
            &estimator, duration: 15, seed: 2, offset: { _ in offset }, rate: Self.handling,
            extra: { t, attitude in t > 3 && t < 12 ? attitude.inverseRotate(SIMD3(20, 5, -5)) : .zero },
            every: 0.5, observe: { t, estimator in if t > 4 && t < 11 { sawDisturbed = sawDisturbed || estimator.status.reason == .disturbed } })
        #expect(Self.distance(estimator.estimate, learned) < 0.5, "moved \(Self.distance(estimator.estimate, learned)) µT")
        #expect(sawDisturbed)
    }

    /// A magnet attached to the board after 30 s: a lasting new offset, relearned while the board
    /// turns.
    @Test func anAttachedMagnetIsRelearned() {
        let before = SIMD3<Double>(12, -7, 18), after = SIMD3<Double>(32, 3, 5)
        var estimator = HardIronEstimator()
        var relearnedAt: Double?
        var learned = SIMD3<Double>.zero
        Self.run(
            &estimator, duration: 60, offset: { t in t < 30 ? before : after }, rate: Self.handling,
            every: 0.1, observe: { t, estimator in
                if abs(t - 29.9) < 0.05 { learned = estimator.estimate }
                if relearnedAt == nil, estimator.status.changes == 1 { relearnedAt = t }
            })
        #expect(Self.distance(learned, before) < 0.5)
        #expect(estimator.status.changes == 1)
        #expect(Self.distance(estimator.estimate, after) < 0.5, "\(estimator.status)")
        let seconds = (relearnedAt ?? .infinity) - 30
        #expect(seconds < 25, "relearned after \(seconds) s")
    }

    /// Carried about a room (walked to and fro along 4 m at 0.4 m/s, swaying 0.5 m sideways)
    /// while turned little (yaw ±30°, pitch and roll ±8°): where the board is.
    static func carriedPosition(_ t: Double) -> SIMD2<Double> {
        let phase = (t * 0.4).truncatingRemainder(dividingBy: 8)
        return SIMD2(phase < 4 ? phase : 8 - phase, 0.5 * sin(0.3 * t))
    }

    static func carriedRate(_ t: Double) -> SIMD3<Double> {
        SIMD3(0.14 * 0.9 * cos(0.9 * t), 0.14 * 1.1 * cos(1.1 * t + 1), 0.52 * 0.6 * cos(0.6 * t + 2))
    }

    /// A field that varies from place to place indoors (steel in walls and floors, a radiator),
    /// fixed in the world at each place: up to `scale` µT per axis (East, North, Up) over
    /// wavelengths of 1.3–2.3 m.
    static func placeField(_ position: SIMD2<Double>, scale: Double) -> SIMD3<Double> {
        let x = position.x, y = position.y
        return scale * SIMD3(0.6 * sin(2 * .pi * x / 1.7 + y), 0.5 * cos(2 * .pi * x / 2.3 + 1), sin(2 * .pi * x / 1.3 + 2 - y))
    }

    /// The product's start for a board with a figure-eight calibration stored at `high` (offset
    /// zero left, σ 0.2 µT, 1 % soft iron).
    static func calibratedStart() -> HardIronEstimator {
        let start = HardIronEstimator.start(from: .figureEightHigh)
        return HardIronEstimator(parameters: start.parameters, sigma: start.sigma)
    }

    /// Issue #25's indoor field with spatial disturbance, as BROAD's trial 11 met it: a calibrated
    /// board carried through a field that varies from place to place (up to 1 or 4 µT per axis),
    /// turned little (at half, once and twice ``carriedRate``). Those readings fit no constant
    /// offset; a from-scratch second filter absorbs them, but it is never determined by rotation
    /// in every direction, never keeps the reference field and never looks like a step: no
    /// hard-iron change is adopted. (Without the three tests, measured: 1, 3 and 1 false changes
    /// at 1 µT, the estimate up to 7.3 µT off; 1 at 4 µT. With them but without starting the second
    /// filter again whenever its own stretches stop fitting it, one at 4 µT once ``carriedRate``.)
    /// What the first filter itself takes from the place's field through its gate is another
    /// matter (up to 2.9 µT here, at 1 µT once ``carriedRate``; 3.7 µT with the soft iron taken as
    /// zero); it is bounded loosely.
    @Test(arguments: [(1.0, 0.5), (1.0, 1.0), (1.0, 2.0), (4.0, 0.5), (4.0, 1.0), (4.0, 2.0)])
    func aPlaceIsNotAChange(scale: Double, turning: Double) {
        var estimator = Self.calibratedStart()
        var worst = 0.0
        Self.run(
            &estimator, duration: 300, offset: { _ in .zero }, rate: { Self.carriedRate($0) * turning },
            extra: { t, attitude in attitude.inverseRotate(Self.placeField(Self.carriedPosition(t), scale: scale)) },
            every: 0.5, observe: { _, estimator in worst = max(worst, Self.distance(estimator.estimate, .zero)) })
        #expect(estimator.status.changes == 0, "\(estimator.status)")
        #expect(worst < 4, "the offset moved \(worst) µT")
    }

    /// From the product's start for a calibrated board, a magnet attached while the board is
    /// handled is relearned (the tests of a change pass for a real one), also where the field
    /// varies from place to place by up to 1 µT as the board is carried. Where it varies by 2 µT
    /// or more, the stretches fit no constant offset before the magnet either and nothing is
    /// relearned, with or without the tests of a change (measured).
    @Test(arguments: [0.0, 1.0])
    func anAttachedMagnetIsRelearnedFromAStoredCalibration(scale: Double) {
        let magnet = SIMD3<Double>(14, -6, 8)
        var estimator = Self.calibratedStart()
        var relearnedAt: Double?
        Self.run(
            &estimator, duration: 60, offset: { t in t < 20 ? .zero : magnet },
            rate: { t in Self.handling(t) * 0.7 + Self.carriedRate(t) },
            extra: { t, attitude in attitude.inverseRotate(Self.placeField(Self.carriedPosition(t), scale: scale)) },
            every: 0.1, observe: { t, estimator in
                if relearnedAt == nil, estimator.status.changes == 1 { relearnedAt = t }
            })
        #expect(estimator.status.changes == 1, "\(estimator.status)")
        #expect(Self.distance(estimator.estimate, magnet) < 1, "\(estimator.status)")
        let seconds = (relearnedAt ?? .infinity) - 20
        #expect(seconds < 25, "relearned after \(seconds) s")
    }

    /// A calibrated board (its offset zero) moved 0.2 m to and fro at 0.8 Hz (up to 0.5 g) along
    /// a line where the field changes by 10.8 µT/m (±2.2 µT at the ends, fixed in the world),
    /// tilted ±15° as it goes (a hand tilts what it moves) and turned slowly about every axis: over
    /// the few directions of such a motion the place's field looks like an offset, and the
    /// estimate moves by 7 µT. With the accelerometer's sense of the board's excursion
    /// (``HardIronEstimator/Parameters/fieldGradient``, 5 µT/m; 0: the readings taken as if the
    /// board stayed in one place) the stretches and the field-strength constraint taken away from
    /// where the board was count for less, and it moves by 5.9 µT: less, not little. The
    /// down-weighting does not make errors that go with the motion independent (measured:
    /// 6.97 → 5.85 µT). Returns how far it ended from zero, µT.
    static func shaken(fieldGradient: Double) -> Double {
        let start = HardIronEstimator.start(from: .figureEightHigh)
        var parameters = start.parameters
        parameters.fieldGradient = fieldGradient
        var estimator = HardIronEstimator(parameters: parameters, sigma: start.sigma)
        let gradient = SIMD3<Double>(6, -4, 8)   // µT per metre along East
        let omega = 2 * Double.pi * 0.8, amplitude = 0.2, tilt = 15 * Double.pi / 180
        var noise = FixedSeedNoise(seed: 7)
        // A slow wander, and a tilt that goes with the position (15° about the device's y axis at
        // the ends of the line): the hand tilts the board as it moves it.
        let rate = { (t: Double) in
            SIMD3(0.3 * cos(1.3 * t), 0.25 * cos(0.9 * t + 1) + tilt * omega * cos(omega * t), 0.2 * cos(0.7 * t + 2))
        }
        Self.forEachAttitude(duration: 120, rate: rate) { t, attitude, turning, dt in
            let east = amplitude * sin(omega * t), acceleration = -omega * omega * east
            let field = attitude.inverseRotate(Self.earth + gradient * east) + noise.gaussianVector(0.4)
            let reading = attitude.inverseRotate(SIMD3(acceleration / 9.80665, 0, -1))
            estimator.update(field: field, rotationRate: turning, acceleration: reading, interval: dt)
        }
        return Self.distance(estimator.estimate, .zero)
    }

    @Test func aShakenBoardsReadingsCountForLess() {
        let with = Self.shaken(fieldGradient: HardIronEstimator.Parameters().fieldGradient)
        let without = Self.shaken(fieldGradient: 0)
        #expect(without > 6, "without: \(without) µT")
        #expect(with < 0.9 * without, "with: \(with) µT, without: \(without) µT")
    }

    /// A magnet attached after 30 s and taken off again after 60 s: the board's own offset, known
    /// from before, comes back after the confirmation alone (no relearning), exactly as it was.
    @Test func aMagnetTakenOffGivesTheOffsetBack() {
        let own = SIMD3<Double>(12, -7, 18), magnet = SIMD3<Double>(32, 3, 5)
        var estimator = HardIronEstimator()
        var backAt: Double?
        Self.run(
            &estimator, duration: 90, offset: { t in t >= 30 && t < 60 ? magnet : own }, rate: Self.handling,
            every: 0.1, observe: { t, estimator in
                if backAt == nil, estimator.status.changes == 2 { backAt = t }
            })
        #expect(estimator.status.changes == 2)
        #expect(Self.distance(estimator.estimate, own) < 0.5, "\(estimator.status)")
        let seconds = (backAt ?? .infinity) - 60
        // Three seconds of rejected stretches confirm it; the stretch under way at the change
        // and the next ones take a little more.
        #expect(seconds < 6, "back after \(seconds) s")
    }

    /// A starting point (a stored calibration) gives its accuracy at once.
    @Test func aStartingPointGivesItsAccuracy() {
        #expect(HardIronEstimator(sigma: 0.2).status.accuracy == .high)
        #expect(HardIronEstimator(sigma: 0.8).status.accuracy == .medium)
        #expect(HardIronEstimator(sigma: 2.5).status.accuracy == .low)
        #expect(HardIronEstimator().status.accuracy == .uncalibrated)
    }

    /// The offset is removed from the field only once it is known to `medium` (a stored
    /// calibration that good: from the first reading); before, the field goes on as read, and the
    /// accuracy says `uncalibrated` with no heading σ, whatever the estimate's own level (`low` at
    /// 2.5 µT): it describes the field given, of which nothing is known (the pendulum's seed 1 said
    /// `low` over the raw field, 22° off).
    @Test func theOffsetIsUsedOnceItIsMedium() {
        let offset = SIMD3<Double>(10, -4, 6), field = SIMD3<Double>(30, 5, -40)
        for (sigma, used) in [(0.8, true), (2.5, false), (nil, false)] as [(Double?, Bool)] {
            var correction = BackgroundFieldCorrection(HardIronEstimator(offset: sigma == nil ? .zero : offset, sigma: sigma))
            for step in 0..<300 {   // 3 s at rest: nothing is learned
                let result = correction.correct(field, rotationRate: .zero, acceleration: SIMD3(0, 0, -1), interval: 0.01, timestamp: Double(step) * 0.01)
                #expect(result.field == (used ? field - offset : field), "σ \(String(describing: sigma)) at \(step)")
                #expect((correction.status.accuracy == .uncalibrated) == !used, "σ \(String(describing: sigma)) at \(step)")
                #expect(correction.status.headingSigma.isFinite == used, "σ \(String(describing: sigma)) at \(step)")
            }
        }
    }

    /// Readings with NaN or infinity are skipped, never learned from.
    @Test func badReadingsAreSkipped() {
        var estimator = HardIronEstimator()
        for _ in 0..<100 {
            estimator.update(field: SIMD3(.nan, 0, 0), rotationRate: SIMD3(1, 0, 0), acceleration: SIMD3(0, 0, -1), interval: 0.01)
            estimator.update(field: SIMD3(1, 2, 3), rotationRate: SIMD3(.infinity, 0, 0), acceleration: SIMD3(0, 0, -1), interval: 0.01)
        }
        #expect(estimator.estimate == .zero)
        #expect(estimator.status.sigma.isFinite)
        // An accelerometer reading that is not a number now and then, while the board turns: the
        // offset is still learned, and stays a number.
        var turned = HardIronEstimator()
        var step = 0
        Self.forEachSample(duration: 60, offset: { _ in SIMD3(10, -5, 20) }, rate: Self.handling) { _, field, omega, down, dt in
            step += 1
            let acceleration = step % 7 == 0 ? SIMD3(.nan, 0, -1) : down
            turned.update(field: field, rotationRate: omega, acceleration: acceleration, interval: dt)
        }
        #expect(Self.distance(turned.estimate, SIMD3(10, -5, 20)) < 1, "\(turned.status)")
    }

    /// Turned through every direction (4 minutes about a wandering axis), the bound on what soft
    /// iron could have done to the offset falls below `high`'s 0.5 µT and the accuracy reaches
    /// `high`; turned through a cap it stays
    /// µT (the sphere through a cap of an ellipsoid has its centre elsewhere), and `high` is never
    /// said: with soft iron present, the offset is indeed µT off then, yet the accuracy never
    /// claims `high` while it is more than 1 µT off.
    @Test func highNeedsDirectionsThatRuleOutSoftIron() {
        let offset = SIMD3<Double>(30, -20, 45)
        // With the 1 % of soft iron a figure-eight leaves: `high`. With the 8 % of a board whose
        // soft iron is not known, the offset is as good, but the heading is not known to 1°.
        var afterFigureEight = HardIronEstimator.Parameters()
        afterFigureEight.softIronAllowance = 0.01
        var full = HardIronEstimator(parameters: afterFigureEight)
        Self.run(&full, duration: 240, offset: { _ in offset }, rate: Self.handling)
        #expect(full.status.softIronBias < 0.5, "\(full.status)")
        #expect(full.status.accuracy == .high, "\(full.status)")
        #expect(Self.distance(full.estimate, offset) < 1)
        var unknown = HardIronEstimator()
        Self.run(&unknown, duration: 240, offset: { _ in offset }, rate: Self.handling)
        #expect(unknown.status.offsetAccuracy == .high, "\(unknown.status)")
        #expect(unknown.status.accuracy < .high, "\(unknown.status)")
        #expect(Self.distance(unknown.estimate, offset) < 1)

        for softIron in [Matrix3.identity, Self.softIron] {
            var cap = HardIronEstimator()
            var wrongWhileHigh = 0
            Self.run(&cap, duration: 60, offset: { _ in offset }, softIron: softIron, rate: Self.cap, every: 0.1) { _, estimator in
                if estimator.status.accuracy == .high, Self.distance(estimator.estimate, offset) > 1 { wrongWhileHigh += 1 }
            }
            #expect(cap.status.softIronBias > 2, "\(cap.status)")
            #expect(cap.status.offsetAccuracy >= .medium, "\(cap.status)")
            #expect(cap.status.accuracy == .low, "the soft iron not known, away from the cap's mean: \(cap.status)")
            #expect(wrongWhileHigh == 0)
            if softIron != .identity {
                // Measured: the soft iron moves this cap's centre by µT, within the bound.
                let error = Self.distance(cap.estimate, offset)
                #expect(error > 1 && error < cap.status.softIronBias, "\(error) µT against the bound \(cap.status.softIronBias) µT")
            }
        }
    }

    /// A stored calibration's soft-iron matrix leaves less to fear: the allowance is a parameter.
    @Test func theSoftIronAllowanceScalesTheBound() {
        var parameters = HardIronEstimator.Parameters()
        var wide = HardIronEstimator(parameters: parameters)
        parameters.softIronAllowance = 0.01
        var narrow = HardIronEstimator(parameters: parameters)
        let offset = SIMD3<Double>(12, -7, 18)
        Self.run(&wide, duration: 40, offset: { _ in offset }, rate: Self.cap)
        Self.run(&narrow, duration: 40, offset: { _ in offset }, rate: Self.cap)
        let ratio = wide.status.softIronBias / narrow.status.softIronBias
        // Not exactly 8: the allowance is also E's prior in the field-strength constraint, so the
        // two offsets, and with them the directions the bound is computed over, differ a little
        // (measured: 7.995).
        #expect(abs(ratio - 8) < 0.05, "\(ratio)")
    }

    /// `high` is reported only once the estimator has said it for a second of sample time; a
    /// starting point that is `high` (a stored calibration) is reported at once.
    @Test func highIsReportedOnlyAfterItHolds() throws {
        var correction = BackgroundFieldCorrection(HardIronEstimator())
        var estimatorHigh: Double?
        var reportedHigh: Double?
        Self.forEachSample(duration: 240, offset: { _ in SIMD3(30, -20, 45) }, rate: Self.handling) { t, field, omega, down, dt in
            let result = correction.correct(field, rotationRate: omega, acceleration: down, interval: dt, timestamp: t)
            guard result.checked else { return }
            if estimatorHigh == nil, correction.estimator.status.accuracy == .high { estimatorHigh = t }
            if reportedHigh == nil, correction.status.accuracy == .high { reportedHigh = t }
        }
        let first = try #require(estimatorHigh)
        let reported = try #require(reportedHigh)
        #expect(reported - first >= BackgroundFieldCorrection.highHoldTime - 1e-9, "estimator \(first) s, reported \(reported) s")
        #expect(reported - first < BackgroundFieldCorrection.highHoldTime + 0.2)
        #expect(BackgroundFieldCorrection(HardIronEstimator(sigma: 0.2)).status.accuracy == .high)
    }

    /// The World Magnetic Model's field becomes the reference: the status reports its strength,
    /// and a field that does not match it (the board is not where it was told) is disturbed, so
    /// nothing more is learned; an implausible one is ignored.
    @Test func anExpectedFieldIsTheReference() throws {
        let berlin = WorldMagneticModel.strengthAndDip(latitude: 52.52, longitude: 13.40, date: 2026.5)
        #expect(abs(berlin.x - 49.8) < 1, "\(berlin)")
        #expect(abs(berlin.y * 180 / .pi - 68.3) < 1, "\(berlin)")
        let earthDip = atan2(-Self.earth.z, Self.earth.y)
        let earthStrength = (Self.earth * Self.earth).sum().squareRoot()

        var matching = HardIronEstimator()
        matching.expect(field: SIMD2(earthStrength, earthDip))
        #expect(matching.status.fieldStrength == earthStrength)
        let offset = SIMD3<Double>(30, -20, 45)
        Self.run(&matching, duration: 30, offset: { _ in offset }, rate: Self.handling)
        #expect(matching.status.fieldStrength == earthStrength)
        #expect(matching.status.reason != .disturbed)
        #expect(Self.distance(matching.estimate, offset) < 0.5)

        var elsewhere = HardIronEstimator()
        elsewhere.expect(field: SIMD2(57, -65 * Double.pi / 180))   // Sydney's field in Berlin
        var disturbedAtEnd = false
        Self.run(&elsewhere, duration: 30, offset: { _ in offset }, rate: Self.handling, every: 0.5) { t, estimator in
            if t > 29 { disturbedAtEnd = estimator.status.reason == .disturbed }
        }
        #expect(disturbedAtEnd)
        #expect(elsewhere.status.accuracy <= .low)

        var implausible = HardIronEstimator()
        implausible.expect(field: SIMD2(500, 0))
        #expect(implausible.status.fieldStrength == 0)
    }
}
