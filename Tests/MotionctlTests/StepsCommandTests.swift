import ArgumentParser
import Testing
@testable import motionctl

/// `motionctl steps` on the simulated board in virtual time: the built binary's output, line for
/// line (seed 1, sensor noise on).
@Suite struct StepsCommandTests {
    @Test func walkPausesPrintsTheCountTheCadenceAndTheActivity() throws {
        let result = try BoardsCommandTests.run(["steps", "--scenario", "walk-pauses", "--duration", "40"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: "\n").map(String.init) == [
            "3.31  walking (low) since 3.31",
            "8.31  walking (medium) since 3.31",
            "13.43  steps 20  cadence 1.93/s",
            "18.31  walking (high) since 3.31",
            "23.58  unknown (low) since 23.58",
            "29.30  walking (low) since 29.30",
            "31.57  steps 42  cadence 1.85/s",
            "34.30  walking (medium) since 29.30",
            "total  57 steps  40.2 m  in 39.5 s",
        ])
    }

    /// With --chip the LSM6DSOX's own counter counts too: its lines beside ours, its total at the
    /// end of the total line (the emulator counts the world's true steps, 10 held back at first).
    @Test func theChipsCountIsPrintedBesideOurs() throws {
        let result = try BoardsCommandTests.run(["steps", "--scenario", "walk-pauses", "--duration", "40", "--chip"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.contains("  chip steps ") } == ["13.30  chip steps 20  cadence 1.94/s", "34.10  chip steps 47  cadence -"])
        #expect(lines.filter { $0.contains("  steps ") && !$0.contains("chip") } == ["13.43  steps 20  cadence 1.93/s", "31.57  steps 42  cadence 1.85/s"])
        #expect(lines.last == "total  57 steps  40.2 m  in 39.5 s  chip 58 steps")
    }

    /// An IMU without a step counter of its own: --chip is refused, naming the fix.
    @Test func theChipsCountOnAnIMUWithoutOneIsRefused() throws {
        let result = try BoardsCommandTests.run(["steps", "--scenario", "walk-hand", "--imu", "mpu6050", "--chip"])
        #expect(result.status != 0)
        #expect(result.error.contains("--chip:") && result.error.contains("drop --chip"), "\(result.error)")
        #expect(result.output.isEmpty, "\(result.output)")
    }

    @Test func noStepsWhileTapped() throws {
        let result = try BoardsCommandTests.run(["steps", "--scenario", "tap"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.hasSuffix("total  0 steps  0.0 m  in 0.0 s\n"))
    }

    @Test func aHeightThatIsNoPersonsIsRefused() {
        for arguments in [["steps", "--simulated", "--height", "0"], ["steps", "--simulated", "--height", "3"], ["steps", "--simulated", "--duration", "-1"]] {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try Motionctl.parseAsRoot(arguments) }
        }
    }
}
