import Locking
import Dispatch
import Foundation
import Fusion
@testable import Motion
import MotionSimulation
import MotionSimulator
import Testing
import Timing

/// What one orientation run on the simulated board produced.
private struct OrientationRun {
    /// The notifications posted, in order.
    var posted: [DeviceOrientationChange]
    /// The naive classifier's changes on the same fused gravity (the device-motion samples).
    var naive: [DeviceOrientationChange]
    /// Our classifier run again on the device-motion samples: must equal `posted`.
    var replayed: [DeviceOrientationChange]
    var samples: [DeviceMotion]
    var world: World
}

/// Records the notifications of one manager.
final class OrientationNotificationLog: Sendable {
    let changes = Locked<[DeviceOrientationChange]>([])

    /// Records `manager`'s orientation notifications until the returned observer is removed.
    func observe(_ manager: MotionManager) -> any NSObjectProtocol {
        NotificationCenter.default.addObserver(forName: .deviceOrientationDidChange, object: manager, queue: nil, using: record)
    }
    func record(_ note: Notification) {
        guard let old = note.userInfo?[MotionManager.oldOrientationKey] as? DeviceOrientation,
              let new = note.userInfo?[MotionManager.newOrientationKey] as? DeviceOrientation,
              let timestamp = note.userInfo?[MotionManager.orientationTimestampKey] as? Double else { return }
        changes.withLock { $0.append(DeviceOrientationChange(old: old, new: new, timestamp: timestamp)) }
    }
}

/// Plays `manager`'s simulated world for `duration` virtual seconds with orientation
/// notifications and device-motion updates (same sampler, same fused gravity) running.
private func playOrientation(_ manager: MotionManager, clock: VirtualClock, for duration: Double) throws -> OrientationRun {
    let world = try #require(manager.simulatedHardware).world
    let log = OrientationNotificationLog()
    let observer = log.observe(manager)
    defer { NotificationCenter.default.removeObserver(observer) }
    let inbox = Inbox<DeviceMotion>()
    manager.startDeviceMotionUpdates(to: inbox.queue, withHandler: inbox.handler)
    manager.beginGeneratingDeviceOrientationNotifications()
    clock.advance(by: duration)
    // Every handler already queued runs before the stop: a stopped manager delivers no more.
    inbox.drain()
    manager.endGeneratingDeviceOrientationNotifications()
    manager.stopDeviceMotionUpdates()
    manager.waitForOrientationNotifications()
    let samples = inbox.values.withLock { $0 }

    var naive = NaiveOrientationClassifier()
    var ours = OrientationClassifier()
    var naiveChanges: [DeviceOrientationChange] = [], replayed: [DeviceOrientationChange] = []
    for sample in samples {
        let before = naive.orientation
        if let new = naive.update(gravity: sample.gravity) {
            naiveChanges.append(DeviceOrientationChange(old: before, new: new, timestamp: sample.timestamp))
        }
        let previous = ours.orientation
        if let new = ours.update(gravity: sample.gravity, userAcceleration: sample.userAcceleration, timestamp: sample.timestamp) {
            replayed.append(DeviceOrientationChange(old: previous, new: new, timestamp: sample.timestamp))
        }
    }
    return OrientationRun(posted: log.changes.withLock { $0 }, naive: naiveChanges, replayed: replayed, samples: samples, world: world)
}

private extension World {
    /// Ground truth: perfectly still (no rotation, no acceleration) at `time`.
    func isStill(at time: Double) -> Bool {
        let truth = truth(at: time)
        return (truth.angularRate * truth.angularRate).sum() == 0 && (truth.acceleration * truth.acceleration).sum() == 0
    }

    /// When the device stopped moving in the pose it has at `time` or, if it is moving at
    /// `time`, next stops (ground truth, to 1 µs). The world's start when it has been still
    /// since then.
    func stopTime(around time: Double) -> Double {
        var moving: Double, still: Double
        if isStill(at: time) {
            still = time
            moving = time
            while isStill(at: moving) {
                guard moving > startTime else { return startTime }
                moving -= 0.01
            }
        } else {
            moving = time
            still = time
            while !isStill(at: still) { still += 0.01 }
        }
        while still - moving > 1e-6 {
            let middle = (moving + still) / 2
            if isStill(at: middle) { still = middle } else { moving = middle }
        }
        return still
    }

    /// The true gravity direction at `time` as angles.
    func gravityAngles(at time: Double) -> GravityAngles { GravityAngles(gravity: truth(at: time).gravity) }
}

/// Orientation notifications end to end on the simulated board (LSM6DSOX + LIS3MDL with their
/// datasheet noise and bias, fixed seeds) in virtual time: each scenario with the exact list of
/// posted orientations, the naive classifier's changes on the same fused gravity, and latencies
/// and switching angles measured against the world's ground truth.
@Suite struct OrientationScenarioTests {
    let clock = VirtualClock()
    static let degree = Double.pi / 180
    static let defaults = OrientationClassifier.Configuration()
    /// Settle time plus one 100 Hz sample period.
    static let latencyBound = defaults.settleTime + MotionManager.minimumUpdateInterval + 1e-9

    private func play(_ name: String, seed: UInt64 = 1) throws -> OrientationRun {
        let scenario = try #require(Scenario.named(name))
        let manager = try MotionManager(source: .simulated(Simulation(scenario: name, seed: seed)), clock: clock, calibrationStore: nil)
        return try playOrientation(manager, clock: clock, for: scenario.script.duration + 1)
    }

    /// Plays a script of the test's own on the simulated board (noise on).
    private func play(_ script: MotionScript, seed: UInt64) throws -> OrientationRun {
        let (board, world) = Simulation(seed: seed).makeBoard(playing: Scenario(name: "test", summary: "", script: script), clock: clock)
        let boardFile = try #require(BoardCatalog.builtIn.board(id: BoardCatalog.simulatedID))
        let device = try DeviceOpener.open(bus: board.bus, board: boardFile, store: nil, pause: .none)
        let manager = MotionManager(hub: SensorHub(device: device, clock: clock), simulated: SimulatedHardware(board: board, world: world))
        return try playOrientation(manager, clock: clock, for: script.duration + 1)
    }

    /// Seconds from the device stopping in each posted orientation to the post (negative when
    /// the post came before the device stopped).
    private func latencies(_ run: OrientationRun) -> [Double] {
        run.posted.map { $0.timestamp - run.world.stopTime(around: $0.timestamp) }
    }

    /// "Six changes" are six notifications: the first, unknown → face up, once the device has
    /// lain still for the settle time, then one per turn onto the next face (five).
    @Test func sixFacesPostSixChangesInOrderWithinSettleTimePlusOneSample() throws {
        let run = try play("six-faces")
        let faces: [DeviceOrientation] = [.faceUp, .faceDown, .portrait, .portraitUpsideDown, .landscapeLeft, .landscapeRight]
        #expect(run.posted.map(\.new) == faces)
        #expect(run.posted.map(\.old) == [.unknown] + faces.dropLast())
        #expect(run.posted.count == 6 && run.naive.count == 16)
        #expect(run.replayed == run.posted)
        let latencies = latencies(run)
        #expect(latencies.allSatisfy { $0 <= Self.latencyBound }, "\(latencies)")
        // The naive classifier on the same fused gravity: landscape right on the way to face
        // down and to portrait, unknown in every turn between edges.
        #expect(run.naive.map(\.new) == [
            .faceUp, .landscapeRight, .faceDown, .landscapeRight, .unknown, .portrait, .unknown, .landscapeLeft, .unknown,
            .portraitUpsideDown, .unknown, .landscapeLeft, .unknown, .portrait, .unknown, .landscapeRight,
        ])
    }

    /// Flips about x (through portrait), y (through landscape) and the diagonal (through
    /// unknown). 0.5 s peaks at 675 °/s about one axis, beyond the driver's ±500 °/s gyro range:
    /// the fused gravity ends up to 9° off and converges afterwards; still only face down.
    @Test(arguments: [0.5, 1, 3, 5])
    func flipPostsOnlyFaceDown(duration: Double) throws {
        let axes: [SIMD3<Double>] = [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0)]
        var naive: [[DeviceOrientation]] = []
        for (index, axis) in axes.enumerated() {
            let script = MotionScript([.rest(2), .turn(to: Quaternion(axis: axis, angle: .pi), over: duration, thenHold: 3)])
            let run = try play(script, seed: 20 + UInt64(index))
            #expect(run.posted.map(\.new) == [.faceUp, .faceDown], "flip about \(axis) in \(duration) s")
            #expect(run.replayed == run.posted)
            let latencies = latencies(run)
            #expect(latencies.allSatisfy { $0 <= Self.latencyBound }, "\(latencies)")
            naive.append(run.naive.map(\.new))
        }
        // The naive classifier on the same fused gravity posts the edge each flip passes: portrait
        // about x, landscape right about y, unknown on the diagonal (how often it bounces between
        // them on the way depends on the flip's speed and the filter's exact path).
        for sequence in naive { #expect(sequence.first == .faceUp && sequence.last == .faceDown && sequence.count >= 3, "\(sequence)") }
        #expect(naive[0] == [.faceUp, .portrait, .faceDown])
        #expect(naive[1] == [.faceUp, .landscapeRight, .faceDown])
        #expect(naive[2].contains(.unknown), "\(naive[2])")
    }

    /// The named `flip` scenario: about y in 1.5 s.
    @Test func flipScenarioPostsOnlyFaceDown() throws {
        let run = try play("flip")
        #expect(run.posted.map(\.new) == [.faceUp, .faceDown])
        #expect(run.posted.count == 2 && run.naive.count == 3)
        #expect(latencies(run).allSatisfy { $0 <= Self.latencyBound })
        #expect(run.naive.map(\.new) == [.faceUp, .landscapeRight, .faceDown])
    }

    /// The scenario starts face up on the table for 1 s, then is lifted to portrait at 45° and
    /// tilted between 30° and 60°: portrait is posted once and held.
    @Test func portraitHeldAtThirtyToSixtyDegreesStaysPortrait() throws {
        let run = try play("portrait-tilt")
        #expect(run.posted.map(\.new) == [.faceUp, .portrait])
        #expect(run.replayed == run.posted)
        // Fused gravity is smooth: the naive classifier holds here too.
        #expect(run.naive.map(\.new) == [.faceUp, .portrait])
        // The portrait post comes on the way up, before the first 30°–60° hold.
        let posted = try #require(run.posted.last)
        #expect(run.world.gravityAngles(at: posted.timestamp).tilt < 45 * Self.degree)
    }

    /// Starts face up, stands up in portrait in 2 s, is shaken at 3 Hz (1.5 g peak) for 6 s.
    @Test func shakingInPortraitPostsNothing() throws {
        let run = try play("shake-portrait")
        #expect(run.posted.map(\.new) == [.faceUp, .portrait])
        let shakeStart = run.world.startTime + 4
        #expect(try #require(run.posted.last).timestamp < shakeStart)
        #expect(run.replayed == run.posted)
        // The shake really is strong: user acceleration above the limit, where decisions stop.
        let peak = run.samples.map { ($0.userAcceleration * $0.userAcceleration).sum().squareRoot() }.max() ?? 0
        #expect(peak > 1.2)
        #expect(run.naive.map(\.new) == [.faceUp, .portrait])
    }

    /// Upright, turned (8 s each way, ≤ 21 °/s) portrait → landscape left → portrait →
    /// landscape right → portrait: one change per turn, after the 45° boundary plus the margin
    /// going out and before it minus the margin coming back (true angles).
    @Test func slowTurnThroughLandscapeBoundaryShowsHysteresis() throws {
        let run = try play("landscape-sweep")
        #expect(run.posted.map(\.new) == [.faceUp, .portrait, .landscapeLeft, .portrait, .landscapeRight, .portrait])
        #expect(run.posted.count == 6 && run.naive.count == 10)
        #expect(run.replayed == run.posted)
        guard run.posted.count == 6 else { return }
        let angles = run.posted.map { abs(run.world.gravityAngles(at: $0.timestamp).rotation) }
        let boundary = 45 * Self.degree, margin = Self.defaults.hysteresisMargin
        #expect(angles[2] >= boundary + margin && angles[4] >= boundary + margin, "out: \(angles[2] / Self.degree)°, \(angles[4] / Self.degree)°")
        #expect(angles[3] <= boundary - margin && angles[5] <= boundary - margin, "back: \(angles[3] / Self.degree)°, \(angles[5] / Self.degree)°")
        // The naive classifier adds unknown in each turn.
        #expect(run.naive.map(\.new) == [
            .faceUp, .portrait, .unknown, .landscapeLeft, .unknown, .portrait, .unknown, .landscapeRight, .unknown, .portrait,
        ])
    }
}
