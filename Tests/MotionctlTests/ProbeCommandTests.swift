import ArgumentParser
import Testing
@testable import motionctl

struct ProbeCommandTests {
    @Test func busAndSimulatedExcludeEachOther() {
        #expect(throws: (any Error).self) {
            _ = try Motionctl.parseAsRoot(["probe", "--bus", "/dev/i2c-1", "--simulated"])
        }
    }

    @Test func parsesABusPath() throws {
        let command = try #require(try Motionctl.parseAsRoot(["probe", "--bus", "/dev/i2c-1"]) as? ProbeCommand)
        #expect(command.bus == "/dev/i2c-1")
        #expect(!command.simulated)
    }

    @Test func aMissingBusFailsTheCommand() throws {
        let command = try ProbeCommand.parse(["--bus", "/dev/i2c-swift-motion-missing"])
        #expect(throws: ExitCode.failure) { try command.run() }
    }
}
