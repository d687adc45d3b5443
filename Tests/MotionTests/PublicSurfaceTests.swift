import Foundation
import TestSupport
import Testing

/// Every type that a public declaration of `Motion` names is one a client of the `Motion` product
/// can name too: Motion's own, the standard library's, Foundation's and Dispatch's, or one that
/// `Sources/Motion/API/Exports.swift` re-exports. Read from the symbol graph of the module this
/// test run was built with (`swift symbolgraph-extract`), so a new public signature that leaks a
/// type of an internal module (`Sensors`, `I2C`, …) fails here.
@Suite struct PublicSurfaceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules a client has without us.
    static let systemModules: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "Dispatch", "_Concurrency", "Synchronization"]

    /// `Module.Type` for each `@_exported import <kind> Module.Type` line.
    static func reexported() throws -> Set<String> {
        let text = try String(contentsOf: repository.appendingPathComponent("Sources/Motion/API/Exports.swift"), encoding: .utf8)
        return Set(text.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "@_exported", words[1] == "import" else { return nil }
            return String(words[3])
        })
    }

    /// The demangled names of Swift USRs (`s:3I2C0A6CErrorV` → `I2C.I2CError`), by `swift demangle`.
    static func demangled(_ usrs: [String]) throws -> [String: String] {
        let mangled = usrs.map { "$s" + $0.dropFirst(2) + "D" }
        let result = try runToEnd(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "demangle", "--compact"] + mangled)
        try #require(result.status == 0, "swift demangle: \(result.error)")
        let names = result.output.split(separator: "\n").map(String.init)
        try #require(names.count == usrs.count, "swift demangle gave \(names.count) names for \(usrs.count) symbols")
        return Dictionary(uniqueKeysWithValues: zip(usrs, names))
    }

    @Test func everyTypeAPublicSignatureNamesIsReachableFromTheProduct() throws {
        // The test binary sits beside the modules it was built with (.build/<triple>/debug/Modules).
        let modules = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("Modules")
        try #require(FileManager.default.fileExists(atPath: modules.appendingPathComponent("Motion.swiftmodule").path), "no Motion.swiftmodule in \(modules.path)")
        let output = try makeTemporaryDirectory("public-surface")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try runToEnd(URL(fileURLWithPath: "/usr/bin/env"), [
            "swift", "symbolgraph-extract", "-module-name", "Motion", "-I", modules.path,
            "-I", Self.repository.appendingPathComponent("CModules/CI2C").path,
            "-minimum-access-level", "public", "-output-dir", output.path,
        ])
        try #require(result.status == 0, "symbolgraph-extract: \(result.error)")
        let data = try Data(contentsOf: output.appendingPathComponent("Motion.symbols.json"))
        let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let symbols = try #require(graph["symbols"] as? [[String: Any]])
        #expect(symbols.count > 100, "the symbol graph looks empty: \(symbols.count) symbols")

        var namedBy: [String: Set<String>] = [:]   // USR of a type → the public symbols that name it
        for symbol in symbols {
            let fragments = symbol["declarationFragments"] as? [[String: Any]] ?? []
            let title = (symbol["names"] as? [String: Any])?["title"] as? String ?? "?"
            for fragment in fragments where fragment["kind"] as? String == "typeIdentifier" {
                if let usr = fragment["preciseIdentifier"] as? String, usr.hasPrefix("s:") { namedBy[usr, default: []].insert(title) }
            }
        }
        let names = try Self.demangled(Array(namedBy.keys))
        let allowed = try Self.reexported()
        var unreachable: [String: Set<String>] = [:]
        for (usr, titles) in namedBy {
            // "Module.Type.Nested" → module and top-level type; a nested type is reachable with its parent.
            let parts = (names[usr] ?? usr).split(separator: ".").map(String.init)
            guard parts.count >= 2, parts[0] != "Motion", !Self.systemModules.contains(parts[0]) else { continue }
            let name = parts[0] + "." + parts[1].prefix { $0 != "<" }
            if !allowed.contains(name) { unreachable[name, default: []].formUnion(titles) }
        }
        #expect(unreachable.isEmpty, "public declarations of Motion name types a client cannot import: \(unreachable)")
        #expect(allowed.contains("Fusion.Attitude") && allowed.contains("I2C.I2CError"))
    }
}
