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
