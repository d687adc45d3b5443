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

    /// ArgumentParser's main with its printing done here, through ``StandardStreams``: help,
    /// `--version`, usage errors and the command's own output are all checked, so a full disk or
    /// a closed stream is an error (exit 1) and never a trap; a closed pipe ends quietly.
    static func main() {
        StandardStreams.guardClosedDescriptors()
        var status: Int32 = 0
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as CommandFailure {
            printError("error: \(failure.message)")
            status = 1
        } catch {
            // What ArgumentParser's `exit(withError:)` would print, where it would print it.
            let text = fullMessage(for: error)
            status = exitCode(for: error).rawValue
            if !text.isEmpty {
                if status == 0 { StandardStreams.output(text + "\n") } else { printError(text) }
            }
        }
        Foundation.exit(StandardStreams.finish(status: status))
    }
}
