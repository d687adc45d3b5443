import ArgumentParser
import CStandardOutput
import Foundation
import Motion

@main
struct Motionctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Probe, stream and calibrate the motion sensors of a Linux board.",
        version: "swift-motion \(MotionManager.version)",
        subcommands: [
            LiveCommand.self,
            StreamCommand.self,
            PublishCommand.self,
            ProbeCommand.self,
            BoardsCommand.self,
            DoctorCommand.self,
            EvaluateCommand.self,
            OrientationCommand.self,
            CalibrateCommand.self,
            CalibrationCommand.self,
            SelftestCommand.self,
            ServeCommand.self,
            RecordCommand.self,
        ],
        defaultSubcommand: LiveCommand.self
    )

    /// ArgumentParser's main, then one more check: everything printed reached standard output
    /// (a full disk behind `> file` is an error, a closed pipe ends quietly).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
            try CheckedOutput.flushStandardOutput()
        } catch let failure as CommandFailure {
            FileHandle.standardError.write(Data("error: \(failure.message)\n".utf8))
            Foundation.exit(1)
        } catch {
            // The command's own error is what is reported; output already lost does not change it.
            _ = CStandardOutput_flushFailed()
            exit(withError: error)
        }
    }
}
