import Foundation

/// A new empty directory under the temporary directory, named `prefix-<UUID>`; the caller removes it.
public func makeTemporaryDirectory(_ prefix: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// `body` run with a new empty directory from ``makeTemporaryDirectory(_:)``, which is removed
/// again when `body` returns or throws.
public func withTemporaryDirectory<Result>(_ prefix: String, _ body: (URL) throws -> Result) throws -> Result {
    let directory = try makeTemporaryDirectory(prefix)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}
