import ArgumentParser
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
            ProbeCommand.self,
            BoardsCommand.self,
            DoctorCommand.self,
            EvaluateCommand.self,
            OrientationCommand.self,
            CalibrateCommand.self,
            CalibrationCommand.self,
            SelftestCommand.self,
            RecordCommand.self,
        ],
        defaultSubcommand: LiveCommand.self
    )
}
