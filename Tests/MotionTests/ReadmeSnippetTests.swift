import Dispatch
import Motion
import Testing

/// The README's snippet, as written there, compiles and delivers (on the simulated board when
/// this machine has no IMU).
@Test func readmeSnippetDeliversDeviceMotion() async throws {
    let motion = MotionManager()                     // this machine's board, else the simulated board
    let queue = DispatchQueue(label: "motion")       // handlers never run on the main queue unless you pass it
    motion.deviceMotionUpdateInterval = 1.0 / 100
    let received = Inbox<DeviceMotion>()
    motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, error in
        guard let motion else { return print("motion error: \(error.map(String.init(describing:)) ?? "none")") }
        received.handler(motion, nil)
    }
    for _ in 0..<500 where received.values.withLock({ $0.count }) < 5 { try await Task.sleep(nanoseconds: 10_000_000) }
    motion.stopDeviceMotionUpdates()                 // no handler runs after this returns
    #expect(received.values.withLock { $0.count } >= 5)
}
