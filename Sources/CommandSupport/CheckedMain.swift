import ArgumentParser
import Foundation

extension ParsableCommand {
    /// ArgumentParser's main with its printing done here, through ``StandardStreams``: help,
    /// `--version`, usage errors and the command's own output are all checked, so a full disk or
    /// a closed stream is an error (exit 1) and never a trap; a closed pipe ends quietly. The
    /// `main()` of every executable of this package.
    package static func checkedMain() -> Never {
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
