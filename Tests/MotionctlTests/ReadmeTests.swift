import Foundation
import Testing

/// The README as a new user meets it: in a clean copy of the repository (the files git tracks or
/// would track, nothing built), its first two commands' equivalents work as printed — no sudo,
/// `scripts/setup.sh` then `swift run motionctl` — and every Swift snippet in it builds against the
/// `Motion` and `MotionSimulation` products and runs, printing samples. Each snippet is a target of
/// the package (`Tests/ReadmeSnippets`), checked to be the README's text. One build of the copy,
/// about a minute on a 2-core machine; none where CI says the checkout is itself a fresh clone that
/// its run built from nothing (``freshClone()``).
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

    /// Where the README's snippets are kept: `readme-snippet-N/main.swift` (N from 1), each a target of the package.
    static let snippetFolder = repository.appendingPathComponent("Tests/ReadmeSnippets")

    /// Whether this checkout is itself what the clean copy would be, already built: CI (.ci/run)
    /// sets `SWIFT_MOTION_FRESH_CLONE=1` when its run starts in a fresh clone and builds it from
    /// nothing with `swift build --build-tests` (every product, the snippets' targets among them),
    /// and git must agree that nothing in it differs from a clone: no file changed or untracked,
    /// nothing ignored but the build's own directories (`.build*`) and `Package.resolved`. Building a
    /// copy again would compile the same files a second time. CI's claim with anything else in the
    /// checkout is a failure (and the copy is built).
    static func freshClone() throws -> Bool {
        guard ProcessInfo.processInfo.environment["SWIFT_MOTION_FRESH_CLONE"] == "1" else { return false }
        let status = try run("/usr/bin/git", ["status", "--porcelain", "--ignored"], in: repository)
        try #require(status.status == 0, "git status failed: \(status.output)")
        let unlike = status.output.split(separator: "\n").filter { line in
            !(line.hasPrefix("!! .build") || line == "!! Package.resolved")
        }
        #expect(unlike.isEmpty, """
            SWIFT_MOTION_FRESH_CLONE=1, but this checkout is not a fresh clone (git status: \(unlike)): \
            unset SWIFT_MOTION_FRESH_CLONE to build the README's commands in a clean copy
            """)
        return unlike.isEmpty
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

        // Each snippet is its target's main.swift, and each target a snippet.
        for (index, snippet) in snippets.enumerated() {
            let file = Self.snippetFolder.appendingPathComponent("readme-snippet-\(index + 1)/main.swift")
            let kept = FileManager.default.contents(atPath: file.path).map { String(decoding: $0, as: UTF8.self) }
            #expect(kept == snippet, """
                README snippet \(index + 1) is not \(file.path): copy the README's text there \
                (a target of Package.swift, readme-snippet-\(index + 1))
                """)
        }
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.snippetFolder.path).sorted()
        #expect(folders == snippets.indices.map { "readme-snippet-\($0 + 1)" }.sorted(), "\(folders): a folder for each README snippet, no other")

        // A clean copy, built by the commands below; or this checkout, a fresh clone built already.
        let fresh = try Self.freshClone()
        let directory = fresh ? Self.repository : try Self.cleanCopy()
        defer { if !fresh { try? FileManager.default.removeItem(at: directory) } }
        let swiftRun = fresh ? "swift run --skip-build" : "swift run"

        // The first command, as a new user runs it, stopped after two seconds instead of by Ctrl-C.
        let setup = try Self.shell("sh scripts/setup.sh", in: directory)
        #expect(setup.status == 0, "\(setup.output)")
        let main = try Self.shell("\(swiftRun) motionctl live --duration 2", in: directory)
        #expect(main.status == 0, "\(main.output.suffix(3000))")
        #expect(main.output.contains("gravity") && main.output.contains("stopped: sampled"), "\(main.output.suffix(3000))")

        for index in snippets.indices {
            let snippet = try Self.shell("\(swiftRun) readme-snippet-\(index + 1)", in: directory)
            #expect(snippet.status == 0, "snippet \(index + 1): \(snippet.output.suffix(3000))")
            let printed = snippet.output.split(separator: "\n").filter { $0.hasPrefix("roll ") || $0.hasPrefix("after 600 s: yaw ") || $0.hasPrefix("replay at ") }
            #expect(printed.count >= 3, "snippet \(index + 1) printed no samples: \(snippet.output.suffix(3000))")
        }
    }
}
