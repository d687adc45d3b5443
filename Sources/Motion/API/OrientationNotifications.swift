import Locking
import Dispatch
import Foundation
import Fusion

extension Notification.Name {
    /// Posted on `NotificationCenter.default` when the device settles in a new orientation, with
    /// the `MotionManager` as object and ``MotionManager/oldOrientationKey`` /
    /// ``MotionManager/newOrientationKey`` (``DeviceOrientation`` values) and
    /// ``MotionManager/orientationTimestampKey`` (`Double`) in `userInfo`. Posted in order from
    /// the manager's own serial queue, never from the sampler's queue.
    public static let deviceOrientationDidChange = Notification.Name("SwiftMotionDeviceOrientationDidChange")
}

/// One posted change of orientation.
public struct DeviceOrientationChange: Sendable, Equatable {
    /// The orientation before the change (`.unknown` for the first one after a begin).
    public var old: DeviceOrientation
    /// The orientation the device settled in.
    public var new: DeviceOrientation
    /// Seconds since boot: the sample that completed the settle time.
    public var timestamp: Double

    package init(old: DeviceOrientation, new: DeviceOrientation, timestamp: Double) {
        self.old = old
        self.new = new
        self.timestamp = timestamp
    }
}

/// Runs the orientation classifier on the fused gravity while anyone asks for orientation
/// (notifications nest: begin/end counted; streams count as one begin each).
final class OrientationNotifier: Sendable {
    private struct State {
        var generators = 0
        var consumerID: Int?
        var classifier: OrientationClassifier
        var streams: [Int: AsyncStream<DeviceOrientationChange>.Continuation] = [:]
        var nextStreamID = 0
    }
    private let state: Locked<State>
    private let postingQueue = DispatchQueue(label: "swift-motion.orientation")
    private static let postingQueueKey = DispatchSpecificKey<Bool>()
    let configuration: OrientationClassifier.Configuration

    init(configuration: OrientationClassifier.Configuration) {
        self.configuration = configuration
        state = Locked(State(classifier: OrientationClassifier(configuration: configuration)))
        postingQueue.setSpecific(key: Self.postingQueueKey, value: true)
    }

    /// Waits until every change decided so far has been posted; returns at once on the posting
    /// queue itself (from an observer), where waiting would deadlock.
    func waitForPosts() {
        guard DispatchQueue.getSpecific(key: Self.postingQueueKey) == nil else { return }
        postingQueue.sync {}
    }

    var orientation: DeviceOrientation { state.withLock { $0.classifier.orientation } }
    var isGenerating: Bool { state.withLock { $0.generators > 0 } }

    /// Adds the classifier's consumer with the first begin. The count and the consumer change
    /// together under the lock, so a concurrent end cannot miss the consumer (lock order:
    /// notifier, then hub; the hub never calls its sinks under its own lock).
    func begin(hub: SensorHub, manager: MotionManager) {
        state.withLock { state in
            state.generators += 1
            guard state.generators == 1 else { return }
            state.consumerID = hub.addConsumer(interval: MotionManager.minimumUpdateInterval, needsFusion: true, sensors: .imu) {
                [weak self, weak manager] event in
                guard case .sample(let sample, let fused?) = event, let self else { return }
                self.classify(sample, fused, manager: manager)
            }
        }
    }

    /// Balances one begin; with the last one the consumer goes and the classifier starts over
    /// (orientation `.unknown` until the next begin settles), as `UIDevice` does.
    func end(hub: SensorHub) {
        state.withLock { state in
            guard state.generators > 0 else { return }
            state.generators -= 1
            guard state.generators == 0 else { return }
            if let id = state.consumerID { hub.removeConsumer(id) }
            state.consumerID = nil
            state.classifier = OrientationClassifier(configuration: configuration)
        }
    }

    func stream(hub: SensorHub, manager: MotionManager) -> AsyncStream<DeviceOrientationChange> {
        let (stream, continuation) = AsyncStream<DeviceOrientationChange>.makeStream()
        let id = state.withLock { state in
            state.nextStreamID += 1
            state.streams[state.nextStreamID] = continuation
            return state.nextStreamID
        }
        begin(hub: hub, manager: manager)
        continuation.onTermination = { [weak self, weak hub] _ in
            guard let self else { return }
            self.state.withLock { _ = $0.streams.removeValue(forKey: id) }
            if let hub { self.end(hub: hub) }
        }
        return stream
    }

    /// On the sampler queue: classify; post a change from the posting queue.
    private func classify(_ sample: MotionSample, _ fused: FusedMotion, manager: MotionManager?) {
        let outcome = state.withLock { state -> (DeviceOrientationChange, [AsyncStream<DeviceOrientationChange>.Continuation])? in
            // A sample handed over just before the last end is not classified.
            guard state.generators > 0 else { return nil }
            let old = state.classifier.orientation
            guard let new = state.classifier.update(
                gravity: fused.gravity, userAcceleration: sample.acceleration - fused.gravity, timestamp: sample.timestamp)
            else { return nil }
            return (DeviceOrientationChange(old: old, new: new, timestamp: sample.timestamp), Array(state.streams.values))
        }
        guard let (change, streams) = outcome else { return }
        for continuation in streams { continuation.yield(change) }
        postingQueue.async { [weak manager] in
            guard let manager else { return }
            NotificationCenter.default.post(
                name: .deviceOrientationDidChange, object: manager,
                userInfo: [
                    MotionManager.oldOrientationKey: change.old, MotionManager.newOrientationKey: change.new,
                    MotionManager.orientationTimestampKey: change.timestamp,
                ])
        }
    }
}

extension MotionManager {
    /// `userInfo` key of ``Foundation/Notification/Name/deviceOrientationDidChange``: the previous ``DeviceOrientation``.
    public static let oldOrientationKey = "oldOrientation"
    /// `userInfo` key of ``Foundation/Notification/Name/deviceOrientationDidChange``: the new ``DeviceOrientation``.
    public static let newOrientationKey = "newOrientation"
    /// `userInfo` key of ``Foundation/Notification/Name/deviceOrientationDidChange``: when the
    /// change was decided (`Double`, seconds since boot: the sample that completed the settle time).
    public static let orientationTimestampKey = "orientationTimestamp"

    /// The orientation last posted (`.unknown` until the first one, or while not generating).
    public var orientation: DeviceOrientation { orientationNotifier.orientation }

    /// True while begins outnumber ends (or an ``orientationChanges()`` stream is iterated).
    public var isGeneratingDeviceOrientationNotifications: Bool { orientationNotifier.isGenerating }

    /// Starts (or nests) orientation notifications: they flow while begins outnumber ends.
    public func beginGeneratingDeviceOrientationNotifications() {
        orientationNotifier.begin(hub: hub, manager: self)
    }

    /// Balances one ``beginGeneratingDeviceOrientationNotifications()``; extra ends are ignored.
    public func endGeneratingDeviceOrientationNotifications() {
        orientationNotifier.end(hub: hub)
    }

    /// Blocks until every orientation change decided so far has been posted to its observers.
    /// With a `VirtualClock`, call it after `advance(by:)` before reading what observers got.
    /// Called from an observer (on the posting queue) it returns at once. Like
    /// ``waitUntilHandlersFinish()``, never call it where an observer may wait for you (the main
    /// thread, when an observer does `DispatchQueue.main.sync`): that waits for ever. Nothing
    /// else here waits for an observer: ``endGeneratingDeviceOrientationNotifications()`` returns
    /// at once (a change decided before it is still posted).
    public func waitForOrientationNotifications() {
        orientationNotifier.waitForPosts()
    }

    /// Orientation changes as they are posted, until the consumer stops iterating.
    public func orientationChanges() -> AsyncStream<DeviceOrientationChange> {
        orientationNotifier.stream(hub: hub, manager: self)
    }
}
