import Foundation
import Motion
import MotionSimulation
import Testing

/// The compass before it has learned: with nothing stored, lying still after a flip, the heading
/// does not move while the field is uncalibrated, and the field's accuracy rises at most once per
/// 2 s (`DeviceMotionExtractor.accuracyRiseDelay`) (a fall is reported at once).
@Suite struct HeadingHoldTests {
    /// Heading and accuracy every 10 ms for 25 s of the `flip` scenario (face up 3 s, flipped in
    /// 1.5 s, face down after), in the magnetic-north frame, no stored calibration.
    static func run(
        _ scenario: String = "flip", seed: UInt64, polls: Int = 2500
    ) throws -> [(time: Double, heading: Double, accuracy: MagneticFieldCalibrationAccuracy)] {
        let clock = VirtualClock()
        let manager = try MotionManager(source: .simulated(Simulation(scenario: scenario, seed: seed)), clock: clock, calibrationStore: nil)
        manager.deviceMotionUpdateInterval = 0.01
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        defer { manager.stopDeviceMotionUpdates() }
        var trace: [(Double, Double, MagneticFieldCalibrationAccuracy)] = []
        for step in 1...polls {
            clock.advance(by: 0.01)
            if let motion = manager.deviceMotion { trace.append((Double(step) * 0.01, motion.heading, motion.magneticField.accuracy)) }
        }
        return trace
    }

    /// The angle between two headings, degrees (0…180).
    static func separation(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return min(d, 360 - d)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func headingHoldsStillWhileUncalibratedAndAccuracyRisesSlowly(seed: UInt64) throws {
        let trace = try Self.run(seed: seed)
        #expect(trace.count > 2400, "device motion delivered \(trace.count) of 2500 polls")
        // Still from 5 s (the flip ends at 4.5 s): while uncalibrated, every heading within 1° of the first.
        let still = trace.filter { $0.time >= 5 && $0.accuracy == .uncalibrated }
        if let first = still.first {
            let spread = still.map { Self.separation($0.heading, first.heading) }.max() ?? 0
            #expect(spread < 1, "seed \(seed): the heading moved \(spread)° while still and uncalibrated (\(still.count) samples)")
        }
        Self.expectSlowRises(trace, seed: seed)
        // At rest after the flip every change of level, a rise or a fall, comes at least 2 s after
        // the one before it (the acceptance's "at most once per interval", in its own scenario).
        var changed = trace.first?.time ?? 0
        for (previous, next) in zip(trace, trace.dropFirst()) where next.time >= 5 && next.accuracy != previous.accuracy {
            #expect(next.time - changed >= 2 - 0.011, "seed \(seed): \(previous.accuracy) → \(next.accuracy) at \(next.time) s, \(next.time - changed) s after the previous change")
            changed = next.time
        }
    }

    /// Through ordinary handling and the rest after it the background calibration learns the
    /// offset: the accuracy rises, and no rise comes sooner than 2 s after the previous change.
    @Test(arguments: [1, 2] as [UInt64])
    func accuracyRisesAtMostOncePerDelayThroughHandling(seed: UInt64) throws {
        let trace = try Self.run("ordinary-handling", seed: seed, polls: 6000)
        let rises = Self.expectSlowRises(trace, seed: seed)
        #expect(rises >= 1, "seed \(seed): the accuracy never rose (last \(trace.last?.accuracy.rawValue ?? -9))")
    }

    /// The attitude is held with the heading (one orientation): in the magnetic-north frame while
    /// the field is uncalibrated, a quarter turn counterclockwise (`quarter-turn`: at 3–5 s) turns
    /// the attitude's yaw by +90° and the heading by −90°, where the fused orientation, following the
    /// field as read (the simulated magnetometer's hard iron), turned by about 54°.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func attitudeTurnsWithTheBoardWhileUncalibrated(seed: UInt64) throws {
        let clock = VirtualClock()
        let manager = try MotionManager(source: .simulated(Simulation(scenario: "quarter-turn", seed: seed)), clock: clock, calibrationStore: nil)
        manager.deviceMotionUpdateInterval = 0.01
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        defer { manager.stopDeviceMotionUpdates() }
        var trace: [(time: Double, yaw: Double, heading: Double, accuracy: MagneticFieldCalibrationAccuracy)] = []
        for step in 1...600 {
            clock.advance(by: 0.01)
            if let motion = manager.deviceMotion {
                trace.append((Double(step) * 0.01, motion.attitude.yaw * 180 / .pi, motion.heading, motion.magneticField.accuracy))
            }
        }
        let before = try #require(trace.first { $0.time >= 2.5 })
        let after = try #require(trace.last { $0.time >= 5.1 && $0.accuracy == .uncalibrated }, "seed \(seed): calibrated before the turn ended")
        #expect(before.accuracy == .uncalibrated)
        let yawTurn = (after.yaw - before.yaw + 540).truncatingRemainder(dividingBy: 360) - 180
        let headingTurn = (after.heading - before.heading + 540).truncatingRemainder(dividingBy: 360) - 180
        #expect(abs(yawTurn - 90) < 2, "seed \(seed): the attitude turned \(yawTurn)°")
        #expect(abs(headingTurn + 90) < 2, "seed \(seed): the heading turned \(headingTurn)°")
    }

    /// Each rise of the level at least the stated delay after the previous change; the rises counted.
    @discardableResult
    static func expectSlowRises(_ trace: [(time: Double, heading: Double, accuracy: MagneticFieldCalibrationAccuracy)], seed: UInt64) -> Int {
        var changed = trace.first?.time ?? 0
        var rises = 0
        var quickFalls: [String] = []
        for (previous, next) in zip(trace, trace.dropFirst()) where next.accuracy != previous.accuracy {
            if next.accuracy.rawValue > previous.accuracy.rawValue {
                rises += 1
                #expect(next.time - changed >= 2 - 0.011, "seed \(seed): a rise to \(next.accuracy) at \(next.time) s, \(next.time - changed) s after the previous change")
            } else if next.time - changed < 2 - 0.011 {
                quickFalls.append("\(previous.accuracy)→\(next.accuracy) at \(next.time) s, \(decimals(next.time - changed)) s after the previous change")
            }
            changed = next.time
        }
        // Not asserted: a fall is reported at once (never claim more than the estimate says), so
        // a fall may follow a rise within the delay. Counted and reported.
        if !quickFalls.isEmpty { print("heading-hold: seed \(seed): falls within 2 s of the previous change: \(quickFalls)") }
        return rises
    }
}

private func decimals(_ value: Double) -> String { String(format: "%.2f", value) }
