import Foundation
import Testing

/// The README and docs/ as a reader meets them: a README short enough to read, opening with the
/// two commands; text that says what is, not how it came to be; links that lead somewhere.
@Suite struct DocumentationTests {
    /// The repository this test file belongs to.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Phrases of a work log rather than a description.
    static let workLog = try? NSRegularExpression(
        pattern: #"\bsession [0-9]|\bround (one|two)\b|\bonce did\b|\bused to\b|#[0-9]+ fixed|\bpreviously\b"#, options: [.caseInsensitive])

    static func text(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// README.md and every docs/*.md, as paths relative to the repository.
    static func markdownFiles() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// Every Swift file under Sources/, relative to the repository.
    static func swiftSources(in folder: String = "Sources") -> [String] {
        let root = repository.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { "\(folder)/" + $0 }
    }

    /// The lines of `text` that hold a work-log phrase, as "path:line: text".
    /// `text` with each third-party licence notice carried verbatim (a `/* … */` block holding
    /// "Redistribution and use", as the BMI270's configuration file has) blanked line for line:
    /// its sentences are the licence's, not ours to reword.
    static func withoutLicenceNotices(_ text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var start: Int?
        for index in lines.indices {
            if lines[index].hasPrefix("/*") { start = index }
            if let first = start, lines[index].hasSuffix("*/") {
                if lines[first...index].contains(where: { $0.contains("Redistribution and use") }) {
                    for blank in first...index { lines[blank] = "" }
                }
                start = nil
            }
        }
        return lines.joined(separator: "\n")
    }

    static func workLogLines(_ text: String, in path: String) -> [String] {
        guard let workLog else { return ["\(path): the work-log pattern does not compile"] }
        var found: [String] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let string = String(line)
            if workLog.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil {
                found.append("\(path):\(number + 1): \(string.trimmingCharacters(in: .whitespaces).prefix(160))")
            }
        }
        return found
    }

    /// The targets of the Markdown links and images in `markdown` (`[text](target)`), outside code blocks.
    static func linkTargets(_ markdown: String) -> [String] {
        var targets: [String] = []
        var inCode = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle(); continue }
            guard !inCode else { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                targets.append(String(after[..<close]).trimmingCharacters(in: .whitespaces))
                rest = after[after.index(after: close)...]
            }
        }
        return targets
    }

    @Test func theReadmeIsShortAndOpensWithTheTwoCommands() throws {
        let readme = try Self.text("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        let count = readme.hasSuffix("\n") ? lines.count - 1 : lines.count
        #expect(count <= 300, "README.md has \(count) lines; the rest belongs in docs/")
        // The first fenced block, within the first 15 lines, is the two commands.
        let fence = try #require(lines.firstIndex { $0.hasPrefix("```") })
        #expect(fence < 15, "the README's first block starts on line \(fence + 1)")
        #expect(lines[fence] == "```sh")
        let commands = lines.dropFirst(fence + 1).prefix { !$0.hasPrefix("```") }.map {
            String($0.split(separator: "#").first ?? "").trimmingCharacters(in: .whitespaces)
        }
        #expect(commands == ["sh scripts/setup.sh && swift run motionctl", "sh scripts/setup.sh && swift test"])
    }

    @Test func noWorkLogInTheDocumentationOrTheSources() throws {
        var found: [String] = []
        // The tests too, but for this file, whose own checks hold the phrases.
        let tests = Self.swiftSources(in: "Tests").filter { !$0.hasSuffix("/DocumentationTests.swift") }
        for path in try Self.markdownFiles() + Self.swiftSources() + tests {
            found += Self.workLogLines(Self.withoutLicenceNotices(try Self.text(path)), in: path)
        }
        #expect(found.isEmpty, "say what is, not how it came to be:\n\(found.joined(separator: "\n"))")
        #expect(Self.swiftSources().count > 100, "Sources/ not found at \(Self.repository.path)")
    }

    @Test func everyRelativeLinkResolves() throws {
        var broken: [String] = []
        var checked = 0
        for path in try Self.markdownFiles() {
            let folder = Self.repository.appendingPathComponent(path).deletingLastPathComponent()
            for target in Self.linkTargets(try Self.text(path)) {
                if target.isEmpty || target.hasPrefix("#") || target.contains("://") || target.hasPrefix("mailto:") { continue }
                let file = String(target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                checked += 1
                let resolved = folder.appendingPathComponent(file).standardizedFileURL
                if !FileManager.default.fileExists(atPath: resolved.path) { broken.append("\(path): \(target)") }
            }
        }
        #expect(broken.isEmpty, "links to nothing:\n\(broken.joined(separator: "\n"))")
        #expect(checked >= 5, "only \(checked) relative links found")
    }

    /// Every fenced block is closed: an open one swallows the rest of its file (and the README's
    /// snippets that `ReadmeTests` builds).
    @Test func everyCodeBlockIsClosed() throws {
        for path in try Self.markdownFiles() {
            let fences = try Self.text(path).split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix("```") }
            #expect(fences.count % 2 == 0, "\(path): \(fences.count) fence lines, one block left open")
        }
    }

    /// The checks themselves: a work-log line and a broken link are found.
    @Test func theChecksFindWhatTheyLookFor() {
        #expect(Self.workLogLines("fine\nas in session 12, this", in: "x.md") == ["x.md:2: as in session 12, this"])
        #expect(Self.workLogLines("It used to trap.", in: "x.md").count == 1)
        #expect(Self.workLogLines("what it does, and why; a background one", in: "x.md").isEmpty)
        #expect(Self.linkTargets("see [a](docs/a.md#x) and ![b](b.png)\n```\n[c](c.md)\n```") == ["docs/a.md#x", "b.png"])
    }
}
