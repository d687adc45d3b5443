import Foundation
import MotionSimulator

/// Generates 24 hours of 100 Hz states (8.64 M) in virtual time through the full world (looping
/// tumble scenario, Earth field) and an error model (MPU-9250 + QMC5883L presets), the way a
/// chip emulator asks for them, and reports the time taken and the peak memory.
/// Run with `swift run -c release motion-bench` (release build; the target is under 60 s).
func benchmarkWorld(hours: Double = 24, rate: Double = 100) -> String {
    let count = Int(hours * 3600 * rate)
    let world = Scenario.tumble.world(startTime: 1000)
    let source = ErrorModelSource(base: world, imu: .mpu9250, magnetometer: .qmc5883l, seed: 1, sampleRate: rate)
    let peakBefore = peakResidentKilobytes()

    func run(_ source: any PhysicalSource) -> (seconds: Double, checksum: Double) {
        let start = DispatchTime.now().uptimeNanoseconds
        var checksum = 0.0
        for k in 0..<count {
            let state = source.state(at: 1000 + Double(k) / rate)
            checksum += state.specificForce.z + state.angularRate.x + state.magneticField.y
        }
        return (Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9, checksum)
    }

    let truth = run(world)
    let full = run(source)
    let peakAfter = peakResidentKilobytes()
    func line(_ name: String, _ result: (seconds: Double, checksum: Double)) -> String {
        let perState = result.seconds / Double(count) * 1e9
        return "\(name): \(String(format: "%.2f", result.seconds)) s (\(String(format: "%.0f", perState)) ns/state, checksum \(String(format: "%.6g", result.checksum)))"
    }
    return """
        world: \(count) states (\(hours) h at \(rate) Hz), scenario tumble (looping), virtual time
          \(line("ground truth only      ", truth))
          \(line("with MPU-9250+QMC5883L ", full))
          peak resident memory: \(peakBefore.map { "\($0) kB" } ?? "n/a") before, \(peakAfter.map { "\($0) kB" } ?? "n/a") after
        """
}

/// VmHWM from /proc/self/status (Linux), kB.
func peakResidentKilobytes() -> Int? {
    let status: String
    do {
        status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    } catch {
        return nil  // not Linux: the report says "n/a"
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
    return nil
}
