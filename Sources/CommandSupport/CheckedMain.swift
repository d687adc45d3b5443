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
        if let unknown = unknownCommand(in: Array(CommandLine.arguments.dropFirst())) {
            printError("error: \(unknown)")
            Foundation.exit(StandardStreams.finish(status: ExitCode.validationFailure.rawValue))
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as CommandFailure {
            StandardStreams.reportFailure(failure)
            status = 1
        } catch {
            // What ArgumentParser's `exit(withError:)` would print, where it would print it.
            let text = fullMessage(for: error)
            status = exitCode(for: error).rawValue
            if !text.isEmpty {
                // One prefix for every error, ArgumentParser's usage errors ("Error: …") included.
                if status == 0 { StandardStreams.output(text + "\n") } else { printError(text.hasPrefix("Error: ") ? "error: " + text.dropFirst(7) : text) }
            }
        }
        Foundation.exit(StandardStreams.finish(status: status))
    }

    /// A first argument that names no subcommand (`motionctl strem`, which ArgumentParser would
    /// hand to the default subcommand as an unexpected argument), or `help` of one that does not
    /// exist: what to say, with the nearest name when one is close. Nil when the arguments start
    /// with an option or a known name.
    static func unknownCommand(in arguments: [String]) -> String? {
        let names = configuration.subcommands.map { $0._commandName }
        guard !names.isEmpty, var word = arguments.first, !word.hasPrefix("-") else { return nil }
        if word == "help" {
            guard arguments.count > 1, !arguments[1].hasPrefix("-") else { return nil }
            word = arguments[1]
        }
        guard !names.contains(word) else { return nil }
        let tool = _commandName
        let nearest = names.map { ($0, editDistance($0, word)) }.min { $0.1 < $1.1 }
        let suggestion = nearest.flatMap { $0.1 <= max(1, word.count / 3) ? "; did you mean '\($0.0)'?" : nil } ?? ""
        return "'\(word)' is not a \(tool) command\(suggestion) (`\(tool) --help` lists them)"
    }

    /// Levenshtein's distance: the fewest single-character insertions, deletions and substitutions.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
