import Foundation
import Testing

/// The README as a new user meets it: in a clean copy of the repository (the files git tracks or
/// would track, nothing built), its first two commands' equivalents work as printed — no sudo,
/// `scripts/setup.sh` then `swift run motionctl` — and every Swift snippet in it builds against the
/// `Motion` and `MotionSimulation` products and runs, printing samples. One build, about a minute on a 2-core machine.
@Suite("README as a new user meets it")
struct ReadmeTests {
    /// The repository this test file belongs to.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func run(_ executable: String, _ arguments: [String], in directory: URL, timeout: Double = 900) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func shell(_ command: String, in directory: URL) throws -> (status: Int32, output: String) {
        try run("/bin/sh", ["-c", command], in: directory)
    }

    /// The fenced blocks of `language` in `markdown`, in order.
    static func blocks(_ language: String, in markdown: String) -> [String] {
        var result: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                result.append((current ?? []).joined(separator: "\n") + "\n")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return result
    }

    /// A copy of the working tree as a fresh clone would have it (tracked and new, unignored files).
    static func cleanCopy() throws -> URL {
        let listing = try run("/usr/bin/git", ["ls-files", "-co", "--exclude-standard", "-z"], in: repository)
        try #require(listing.status == 0, "git ls-files failed: \(listing.output)")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("swift-motion-clone-\(UUID())")
        for path in listing.output.split(separator: "\0").map(String.init) {
            let source = repository.appendingPathComponent(path)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }   // deleted, not yet committed
            let target = copy.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: source, to: target)
        }
        return copy
    }

    @Test func theFirstTwoCommandsAndEverySnippetWorkInACleanCopy() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = try #require(Self.blocks("sh", in: readme).first).split(separator: "\n").map {
            String($0.split(separator: "#").first ?? "").trimmingCharacters(in: .whitespaces)
        }
        #expect(commands == ["sh scripts/setup.sh && swift run motionctl", "sh scripts/setup.sh && swift test"])
        #expect(!readme.contains("sudo apt-get"), "the first commands must work as root without sudo")
        let snippets = Self.blocks("swift", in: readme)
        #expect(snippets.count >= 2)

        let copy = try Self.cleanCopy()
        defer { try? FileManager.default.removeItem(at: copy) }
        // Every snippet as an executable of its own, depending on the Motion product.
        var manifest = try String(contentsOf: copy.appendingPathComponent("Package.swift"), encoding: .utf8)
        for (index, snippet) in snippets.enumerated() {
            let folder = copy.appendingPathComponent("Sources/readme-snippet-\(index + 1)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try snippet.write(to: folder.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
            manifest += "\npackage.targets.append(.executableTarget(name: \"readme-snippet-\(index + 1)\", dependencies: [\"Motion\", \"MotionSimulation\"]))\n"
        }
        try manifest.write(to: copy.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)

        // The first command, as a new user runs it, stopped after two seconds instead of by Ctrl-C.
        let setup = try Self.shell("sh scripts/setup.sh", in: copy)
        #expect(setup.status == 0, "\(setup.output)")
        let main = try Self.shell("swift run motionctl live --duration 2", in: copy)
        #expect(main.status == 0, "\(main.output.suffix(3000))")
        #expect(main.output.contains("gravity") && main.output.contains("stopped: sampled"), "\(main.output.suffix(3000))")

        for index in snippets.indices {
            let snippet = try Self.shell("swift run readme-snippet-\(index + 1)", in: copy)
            #expect(snippet.status == 0, "snippet \(index + 1): \(snippet.output.suffix(3000))")
            let printed = snippet.output.split(separator: "\n").filter { $0.hasPrefix("roll ") || $0.hasPrefix("after 600 s: yaw ") || $0.hasPrefix("replay at ") }
            #expect(printed.count >= 3, "snippet \(index + 1) printed no samples: \(snippet.output.suffix(3000))")
        }
    }
}
