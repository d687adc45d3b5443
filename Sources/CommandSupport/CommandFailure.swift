import ArgumentParser

/// A failure the command reports as `error: message` and exits 1 for.
package struct CommandFailure: Error, CustomStringConvertible {
    package var message: String

    package init(message: String) {
        self.message = message
    }

    package var description: String { message }

    /// Runs a command's body; a failure prints `error: …` to standard error and exits 1.
    package static func reporting<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as CommandFailure {
            StandardStreams.reportFailure(failure)
            throw ExitCode.failure
        }
    }
}
