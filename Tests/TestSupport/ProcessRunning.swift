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
