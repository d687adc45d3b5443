import ArgumentParser
import CommandSupport
import Motion

/// The research commands: the attitude filter scored on BROAD recordings, and the background
/// magnetometer calibration measured on the simulated board. Not for a board user (that is
/// `motionctl`); for whoever changes the fusion and needs its figures.
@main
struct MotionLab: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "motion-lab",
        abstract: "Measure the fusion: the attitude filter on BROAD recordings, the background calibration on the simulated board, the step detector on walking traces.",
        version: "swift-motion \(MotionManager.version)",
        subcommands: [
            EvaluateCommand.self,
            BackgroundCheckCommand.self,
            StepsCommand.self,
        ]
    )

    /// ArgumentParser's main, its printing checked (``ParsableCommand/checkedMain()``).
    static func main() {
        checkedMain()
    }
}
