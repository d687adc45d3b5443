import ArgumentParser
import Testing
@testable import motionctl

/// `motionctl orientation` on the simulated board in virtual time: the built binary's output,
/// line for line (seed 1, sensor noise on).
@Suite struct OrientationCommandTests {
    @Test func sixFacesPrintsEachChangeWithItsTime() throws {
        let result = try BoardsCommandTests.run(["orientation", "--scenario", "six-faces"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: "\n").map(String.init) == [
            "0.310  unknown → faceUp",
            "6.000  faceUp → faceDown",
            "11.920  faceDown → portrait",
            "18.020  portrait → portraitUpsideDown",
            "23.920  portraitUpsideDown → landscapeLeft",
            "30.040  landscapeLeft → landscapeRight",
        ])
    }

    @Test func durationCutsTheScenarioShort() throws {
        let result = try BoardsCommandTests.run(["orientation", "--simulated", "--duration", "8"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == "0.310  unknown → faceUp\n6.000  faceUp → faceDown\n")
    }

    @Test func optionsThatExcludeEachOtherAreRefused() {
        for arguments in [
            ["orientation", "--simulated", "--bus", "/dev/i2c-1"],
            ["orientation", "--scenario", "flip", "--board", "raspberry-pi-5"],
            ["orientation", "--bus", "/dev/i2c-1", "--real-time"],
            ["orientation", "--scenario", "no-such-scenario"],
            ["orientation", "--simulated", "--duration", "-1"],
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { _ = try Motionctl.parseAsRoot(arguments) }
        }
    }

    @Test func anUnknownBoardFailsWithTheKnownIDs() throws {
        let result = try BoardsCommandTests.run(["orientation", "--board", "commodore-64"])
        #expect(result.status == 1)
        #expect(result.error.contains("no built-in board \"commodore-64\""))
        #expect(result.error.contains("raspberry-pi-5"))
    }
}
