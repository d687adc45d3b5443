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
}
