import Dispatch
import Foundation

/// Runs `executable` with `arguments` (in `environment`, else this process's) until it exits: its
/// exit status, standard output and standard error. Both streams are read at once (a child that
/// fills one pipe while we wait on the other never stalls); with a `timeout` the child is ended
/// after that many seconds, so a hang fails its test instead of stalling the run.
public func runToEnd(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, timeout: Double? = nil
) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
    if let timeout { DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog) }
    let errorRead = DispatchGroup()
    nonisolated(unsafe) var errData = Data()
    DispatchQueue.global().async(group: errorRead) { errData = error.fileHandleForReading.readDataToEndOfFile() }
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    errorRead.wait()
    process.waitUntilExit()
    watchdog.cancel()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// An executable of this package (`motionctl`, `motion-bench`) built next to the test bundle.
public func builtExecutable(_ name: String) throws -> URL {
    let candidates = [
        Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        Bundle.main.bundleURL.deletingLastPathComponent(),
    ].map { $0.appendingPathComponent(name) }
    guard let built = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw ExecutableMissing(description: "\(name) not built next to the tests: \(candidates.map(\.path))")
    }
    return built
}

/// ``builtExecutable(_:)`` found none.
public struct ExecutableMissing: Error, CustomStringConvertible {
    public var description: String
}
