import Motion
import MotionSimulation   // the simulated board in virtual time, scenarios, recordings

func simulateAndReplay() throws {
    // Ten minutes of the figure-eight scenario at 100 Hz, in a fraction of a second.
    let clock = VirtualClock()
    let motion = try MotionManager(source: .simulated(Simulation(scenario: "figure-eight")), clock: clock)
    motion.deviceMotionUpdateInterval = 0.01
    motion.startDeviceMotionUpdates(using: .xArbitraryZVertical)   // pull: read motion.deviceMotion
    clock.advance(by: 600)
    if let latest = motion.deviceMotion { print("after 600 s: yaw \(latest.attitude.yaw) rad, \(motion.counters)") }
    motion.stopDeviceMotionUpdates()

    // Replay: a recording of the "flip" scenario played back, its orientation changes printed.
    guard let flip = Scenario.named("flip") else { return }
    let recording = Recording.record(flip.world(), duration: flip.duration, rate: 100)
    let replayClock = VirtualClock()
    let replay = try MotionManager(source: .simulated(Simulation(replay: recording)), clock: replayClock)
    replay.beginGeneratingDeviceOrientationNotifications()
    for step in 1...Int(flip.duration) {
        replayClock.advance(by: 1)
        print("replay at \(step) s: \(replay.orientation)")
    }
    replay.endGeneratingDeviceOrientationNotifications()
}

try simulateAndReplay()
