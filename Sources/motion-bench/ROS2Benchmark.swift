import Dispatch
import Foundation
import Motion
import MotionROS
import MotionSimulation
import Synchronization

/// CPU of publishing to ROS 2: the simulated board sampled at 100 Hz (device motion to a handler)
/// for `seconds`, then the same with a `ROSPublisher` at 100 Hz on a second manager of the same
/// device (one sampler), writing to a DDS domain of its own with nobody subscribed (Cyclone
/// serializes and hands each sample to the network either way: best effort to the multicast
/// discovery's readers, none here). Both in this run, one after the other.
func runROS2Benchmark(seconds: Double) {
    print("== ROS 2: CPU at 100 Hz sampling, with sensor_msgs/Imu publishing over DDS at 100 Hz against without, \(Int(seconds)) s each")
    do {
        let source = MotionSource.simulated(Simulation(scenario: "tumble"))
        let sampling = try MotionManager(source: source, calibrationStore: nil)
        let delivered = Atomic(0)
        sampling.deviceMotionUpdateInterval = 0.01
        sampling.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: DispatchQueue(label: "bench.ros2.handler")) { motion, _ in
            if motion != nil { delivered.add(1, ordering: .relaxed) }
        }
        defer { sampling.stopDeviceMotionUpdates() }
        while delivered.load(ordering: .relaxed) < 10 { Thread.sleep(forTimeInterval: 0.01) }   // past the one-off first read

        func measure() -> (cpu: Double, wall: Double, samples: Int) {
            let cpuBefore = processCPUSeconds(), wallBefore = Date(), before = delivered.load(ordering: .relaxed)
            Thread.sleep(forTimeInterval: seconds)
            return (processCPUSeconds() - cpuBefore, Date().timeIntervalSince(wallBefore), delivered.load(ordering: .relaxed) - before)
        }
        let without = measure()

        var configuration = ROSConfiguration()
        configuration.domainID = 200 + Int(getpid() % 30)   // away from the usual 0
        configuration.rate = 100
        let publisher = try ROSPublisher(manager: try MotionManager(source: source, calibrationStore: nil), configuration: configuration)
        try publisher.start()
        Thread.sleep(forTimeInterval: 0.5)
        let published = publisher.counters.published
        let with = measure()
        let messages = publisher.counters.published - published
        publisher.stop()

        func line(_ label: String, _ run: (cpu: Double, wall: Double, samples: Int)) -> String {
            String(format: "%@ %6.2f %% of one core (%d samples at %.1f Hz)", label, 100 * run.cpu / run.wall, run.samples, Double(run.samples) / run.wall)
        }
        print(line("sampling at 100 Hz, no publishing:        ", without))
        print(line("the same, publishing at 100 Hz to ROS 2:  ", with) + String(format: ", %d samples published (%.1f per second, 3 topics each)", messages, Double(messages) / with.wall))
        print(String(format: "ratio with/without: %.2f; publishing adds %.2f %% of one core (%.0f µs per sample; it includes the second "
                     + "manager's channel, the publishing thread and Cyclone's threads)", (with.cpu / with.wall) / (without.cpu / without.wall),
                     100 * (with.cpu / with.wall - without.cpu / without.wall),
                     1e6 * (with.cpu - without.cpu * with.wall / without.wall) / Double(max(1, messages))))
        print("ros2: \(publisher.counters)")
    } catch {
        print("ros2 benchmark failed: \(error)")
    }
}
