import Foundation
import TestSupport
import Testing

/// `motionctl --help` lists what a board user needs; the research commands are motion-lab's.
@Suite struct HelpTests {
    @Test func theResearchCommandsAreNotMotionctls() throws {
        let help = try BoardsCommandTests.run(["--help"])
        #expect(help.status == 0, "\(help)")
        for command in ["live", "stream", "probe", "doctor", "calibrate", "calibration", "selftest", "serve", "record", "publish", "ros2", "altitude"] {
            #expect(help.output.contains("  \(command)"), "\(command) missing from: \(help.output)")
        }
        #expect(!help.output.contains("evaluate"), "\(help.output)")
        let evaluate = try BoardsCommandTests.run(["evaluate", "--data", "/tmp", "--out", "/tmp"])
        #expect(evaluate.status != 0, "\(evaluate)")
        let check = try BoardsCommandTests.run(["calibration", "background-check"])
        #expect(check.status != 0, "\(check)")
        let calibrationHelp = try BoardsCommandTests.run(["calibration", "--help"])
        #expect(!calibrationHelp.output.contains("background-check"), "\(calibrationHelp.output)")
    }

    /// A mistyped command, `help` of one that does not exist and a bad option value: one prefix
    /// (`error:`), on standard error, exit 64 (EX_USAGE), the nearest command named when one is close.
    @Test func usageErrorsSayWhatToTypeOnStandardError() throws {
        let typo = try BoardsCommandTests.run(["strem"])
        #expect(typo.status == 64 && typo.output.isEmpty, "\(typo)")
        #expect(typo.error.hasPrefix("error: 'strem' is not a motionctl command; did you mean 'stream'?"), "\(typo.error)")
        let help = try BoardsCommandTests.run(["help", "nosuch"])
        #expect(help.status == 64 && help.error.hasPrefix("error: 'nosuch' is not a motionctl command"), "\(help)")
        #expect(try BoardsCommandTests.run(["help", "stream"]).status == 0)
        let value = try BoardsCommandTests.run(["stream", "--rate", "abc"])
        #expect(value.status == 64 && value.error.hasPrefix("error: ") && !value.error.contains("Error:"), "\(value.error)")
    }

    /// Each command's own options come before the source options every command shares.
    @Test func aCommandsOwnOptionsComeFirst() throws {
        let help = try BoardsCommandTests.run(["stream", "--help"]).output
        let own = try #require(help.range(of: "--rate <rate>")), shared = try #require(help.range(of: "--simulated"))
        #expect(own.lowerBound < shared.lowerBound, "\(help)")
    }

    /// `probe` on a machine without an I2C bus shows the simulated board and says so to a script:
    /// exit 69 (EX_UNAVAILABLE), the explanation on standard error, the report on standard output.
    @Test(.enabled(if: ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).allSatisfy { !$0.hasPrefix("i2c-") }, "this machine has an I2C bus"))
    func probeWithoutABusSaysItShowsTheSimulatedBoard() throws {
        let probe = try BoardsCommandTests.run(["probe"])
        #expect(probe.status == 69, "\(probe)")
        #expect(probe.error.contains("No I2C bus found") && probe.output.contains("SIMULATED board"), "\(probe)")
    }
}
