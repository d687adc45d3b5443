import Foundation

/// Runs `executable` with `arguments` (in `environment`, else this process's) until it exits: its
/// exit status, standard output and standard error.
public func runToEnd(
    _ executable: URL, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
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
