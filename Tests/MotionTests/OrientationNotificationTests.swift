import Locking
import Dispatch
import Foundation
import Fusion
@testable import Motion
import MotionSimulation
import Testing
import Timing

@Suite struct OrientationNotificationTests {
    let clock = VirtualClock()

    @Test func beginAndEndNestAndPostOnNotificationCenter() async throws {
        let manager = MotionManager(hub: SensorHub(device: ScriptedDevice(clock: clock), clock: clock))
        let log = OrientationNotificationLog()
        let observer = log.observe(manager)
        defer { NotificationCenter.default.removeObserver(observer) }

        #expect(manager.orientation == .unknown)
        manager.beginGeneratingDeviceOrientationNotifications()
        manager.beginGeneratingDeviceOrientationNotifications()
        manager.endGeneratingDeviceOrientationNotifications()
        #expect(manager.isGeneratingDeviceOrientationNotifications)
        clock.advance(by: 2)
        #expect(manager.orientation == .faceUp)
        manager.endGeneratingDeviceOrientationNotifications()
        manager.endGeneratingDeviceOrientationNotifications()   // extra end: ignored
        #expect(!manager.isGeneratingDeviceOrientationNotifications)
        #expect(clock.activeTimers == 0)
        // Posting happens on the notifier's own queue; wait for it by polling a bounded number of times.
        for _ in 0..<200 where log.changes.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 5_000_000) }
        let posts = log.changes.withLock { $0 }
        #expect(posts.count == 1)
        #expect(posts.first?.old == .unknown && posts.first?.new == .faceUp)
    }

    /// After the last end the classifier starts over: `.unknown` while stopped, and a new begin
    /// posts the orientation again (rather than keeping the old one and posting nothing).
    @Test func generatingAgainStartsFromUnknownAndPostsAgain() async throws {
        let manager = MotionManager(hub: SensorHub(device: ScriptedDevice(clock: clock), clock: clock))
        let log = OrientationNotificationLog()
        let observer = log.observe(manager)
        defer { NotificationCenter.default.removeObserver(observer) }

        manager.beginGeneratingDeviceOrientationNotifications()
        clock.advance(by: 2)
        #expect(manager.orientation == .faceUp)
        manager.endGeneratingDeviceOrientationNotifications()
        #expect(manager.orientation == .unknown)
        manager.beginGeneratingDeviceOrientationNotifications()
        clock.advance(by: 2)
        #expect(manager.orientation == .faceUp)
        manager.endGeneratingDeviceOrientationNotifications()
        manager.waitForOrientationNotifications()
        let posts = log.changes.withLock { $0 }
        #expect(posts.count == 2)
        #expect(posts.allSatisfy { $0.old == .unknown && $0.new == .faceUp })
    }
}
