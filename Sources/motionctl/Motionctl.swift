import ArgumentParser
import CommandSupport
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
            ROS2Command.self,
            ProbeCommand.self,
            BoardsCommand.self,
            DoctorCommand.self,
            OrientationCommand.self,
            AltitudeCommand.self,
            StepsCommand.self,
            CalibrateCommand.self,
            CalibrationCommand.self,
            SelftestCommand.self,
            ServeCommand.self,
            RecordCommand.self,
        ],
        defaultSubcommand: LiveCommand.self
    )

    /// ArgumentParser's main, its printing checked (``ParsableCommand/checkedMain()``).
    static func main() {
        checkedMain()
    }
}
