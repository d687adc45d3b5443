import ArgumentParser
import Testing
@testable import motionctl

struct SelftestCommandTests {
    @Test func simulatedExcludesBoardAndBus() {
        #expect(throws: (any Error).self) { _ = try Motionctl.parseAsRoot(["selftest", "--simulated", "--board", "raspberry-pi-4b"]) }
        #expect(throws: (any Error).self) { _ = try Motionctl.parseAsRoot(["selftest", "--simulated", "--bus", "/dev/i2c-1"]) }
    }

    @Test func parsesABoardAndBus() throws {
        let command = try #require(try Motionctl.parseAsRoot(["selftest", "--board", "raspberry-pi-4b", "--bus", "3"]) as? SelftestCommand)
        #expect(command.source.board == "raspberry-pi-4b")
        #expect(command.source.bus == "3")
        #expect(!command.source.simulated)
    }

    @Test func passesOnTheSimulatedBoard() throws {
        let command = try SelftestCommand.parse(["--simulated"])
        try command.run()
    }

    @Test func aMissingBusFailsTheCommand() throws {
        let command = try SelftestCommand.parse(["--board", "raspberry-pi-4b", "--bus", "/dev/i2c-swift-motion-missing"])
        #expect(throws: ExitCode.failure) { try command.run() }
    }
}
