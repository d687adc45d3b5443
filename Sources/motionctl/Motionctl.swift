import ArgumentParser

@main
struct Motionctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motionctl",
        abstract: "Probe, stream and calibrate the motion sensors of a Linux board.",
        subcommands: [
            ProbeCommand.self,
            BoardsCommand.self,
            DoctorCommand.self,
            EvaluateCommand.self,
            CalibrateCommand.self,
            CalibrationCommand.self,
        ]
    )
}
