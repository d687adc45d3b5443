import Foundation
import TestSupport
import Testing

/// What a client of each library product sees, read from the symbol graphs
/// (`swift symbolgraph-extract -minimum-access-level public`) of the modules this test run was built
/// with: the product's own public symbols plus every member, at any depth, of each type its
/// `Exports.swift` re-exports. Every type those signatures name is one the client can name too (the
/// product's own, a re-exported one, the standard library's, Foundation's, Dispatch's, swift-log's);
/// the modules that are not products have no public symbol outside the types re-exported from
/// them; and `Motion` stays small enough that every symbol in it is there on purpose.
@Suite struct PublicSurfaceTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The library products, each with the file that lists what it re-exports and the products a
    /// client of it imports too (MotionSimulation's, MotionPublish's and MotionROS's signatures name Motion's types).
    static let products: [(module: String, exports: String?, alongside: [String])] = [
        ("Motion", "Sources/Motion/API/Exports.swift", []),
        ("MotionSimulation", "Sources/MotionSimulation/Exports.swift", ["Motion"]),
        ("MotionPublish", nil, ["Motion"]),
        ("MotionROS", nil, ["Motion"]),
    ]

    /// At most this many public symbols reach a client of `Motion` (its own and its re-exported types'
    /// members; swift-log's `Logger`, a package of its own, not counted), per part of Core Motion:
    /// a symbol belongs to the first part one of whose prefixes starts its top-level name, else to
    /// `CMMotionManager`'s half. A new part of Core Motion gets a line here with its own budget.
    static let motionSurfaceBudgets: [(part: String, prefixes: [String], limit: Int)] = [
        // (Named where a later part's prefix would take them: `AttitudeSource`, the estimator's types.)
        ("CMMotionManager and what it shares", ["AttitudeSource", "AttitudeEstimator"], 400),
        // `CMAttitudeReferenceFrame`: an option set as in Core Motion, so SetAlgebra's members come with it.
        ("CMAttitudeReferenceFrame", ["AttitudeReferenceFrame"], 40),
        // `CMAttitude`: a class as there; its angles, quaternion, matrix, `multiply(byInverseOf:)`,
        // `copy()` and `NSCopying`'s `copy(with:)`, `init(quaternion:)`, `==` (Equatable's `!=` with it).
        ("CMAttitude", ["Attitude"], 12),
        // `CMErrorDomain` and the `CMError` constants under their renamed spellings: 15 globals.
        ("CMError's constants", ["MotionErrorDomain", "MotionErrorNULL", "MotionErrorDeviceRequiresMovement",
            "MotionErrorTrueNorthNotAvailable", "MotionErrorUnknown", "MotionErrorMotionActivity", "MotionErrorInvalid",
            "MotionErrorNot", "MotionErrorNilData", "MotionErrorSize"], 15),
        // `CMAltimeter`, `CMAltitudeData`, `CMAbsoluteAltitudeData`, their handlers, `CMAuthorizationStatus`,
        // and the reference an absolute altitude is measured from (ours).
        ("CMAltimeter", ["Altimeter", "AltitudeData", "AbsoluteAltitudeData", "AltitudeHandler", "AbsoluteAltitudeHandler",
            "AltitudeReference", "AuthorizationStatus"], 56),
        // `CMPedometer`, its data, events and handlers; `StepLength`, the distance model's input.
        ("CMPedometer", ["Pedometer", "StepLength"], 60),
        // `CMMotionActivityManager`, `CMMotionActivity`, its confidence and handlers.
        ("CMMotionActivityManager", ["MotionActivity"], 45),
    ]

    /// Modules a client has without us (swift-log's `Logging` is a package a client can depend on).
    static let importable: Set<String> = ["Swift", "Foundation", "FoundationEssentials", "Dispatch", "_Concurrency", "Synchronization", "Logging"]

    /// One public symbol of a graph.
    struct Symbol {
        var module: String
        var path: [String]
        /// The USRs of the types its declaration and generic constraints name.
        var named: Set<String>
        var usr: String
    }

    /// `Module.Type` for each `@_exported import <kind> Module.Type` line of `file`.
    static func reexported(_ file: String?) throws -> [(module: String, type: String)] {
        guard let file else { return [] }
        let text = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count == 4, words[0] == "@_exported", words[1] == "import" else { return nil }
            let parts = words[3].split(separator: ".")
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }

    /// The modules this run was built with (`.build/<triple>/debug/Modules`, beside the test binary).
    static let build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

    /// Every public symbol of `module`, extensions of other modules' types included.
    static func symbols(of module: String, into output: URL) throws -> [Symbol] {
        let modules = build.appendingPathComponent("Modules")
        try #require(FileManager.default.fileExists(atPath: modules.appendingPathComponent("\(module).swiftmodule").path), "no \(module).swiftmodule in \(modules.path)")
        // The C modules: the system libraries' module maps, and those SwiftPM writes for C targets.
        var includes = ["CModules/CI2C", "CModules/CSPI", "CModules/CMosquitto", "CModules/CCycloneDDS"].map { repository.appendingPathComponent($0).path }
        let built = (try? FileManager.default.contentsOfDirectory(atPath: build.path)) ?? []
        includes += built.filter { $0.hasPrefix("C") && $0.hasSuffix(".build") }.map { build.appendingPathComponent($0).path }
        // The dependencies' C targets (FlyingFox's CSystemLinux under MotionServe).
        let checkouts = build.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("checkouts")
        if let files = FileManager.default.enumerator(atPath: checkouts.path) {
            for case let file as String in files where file.hasSuffix("include/module.modulemap") {
                includes.append(checkouts.appendingPathComponent(file).deletingLastPathComponent().path)
            }
        }
        let directory = output.appendingPathComponent(module)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let result = try runToEnd(URL(fileURLWithPath: "/usr/bin/env"), [
            "swift", "symbolgraph-extract", "-module-name", module, "-I", modules.path,
        ] + includes.flatMap { ["-I", $0] } + ["-minimum-access-level", "public", "-output-dir", directory.path])
        try #require(result.status == 0, "symbolgraph-extract \(module): \(result.error)")
        var symbols: [Symbol] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix(".symbols.json") {
            let data = try Data(contentsOf: directory.appendingPathComponent(file))
            let graph = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for symbol in graph["symbols"] as? [[String: Any]] ?? [] {
                var named = Set<String>()
                for fragment in symbol["declarationFragments"] as? [[String: Any]] ?? [] where fragment["kind"] as? String == "typeIdentifier" {
                    if let usr = fragment["preciseIdentifier"] as? String { named.insert(usr) }
                }
                let generics = symbol["swiftGenerics"] as? [String: Any]
                for constraint in generics?["constraints"] as? [[String: Any]] ?? [] {
                    if let usr = constraint["rhsPrecise"] as? String { named.insert(usr) }
                }
                let identifier = symbol["identifier"] as? [String: Any]
                symbols.append(Symbol(
                    module: module, path: symbol["pathComponents"] as? [String] ?? [], named: named,
                    usr: identifier?["precise"] as? String ?? "?"))
            }
        }
        return symbols
    }

    /// The demangled names of Swift USRs (`s:3I2C0A6CErrorV` → `I2C.I2CError`), by `swift demangle`.
    static func demangled(_ usrs: [String]) throws -> [String: String] {
        guard !usrs.isEmpty else { return [:] }
        let mangled = usrs.map { "$s" + $0.dropFirst(2) + "D" }
        let result = try runToEnd(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "demangle", "--compact"] + mangled)
        try #require(result.status == 0, "swift demangle: \(result.error)")
        let names = result.output.split(separator: "\n").map(String.init)
        try #require(names.count == usrs.count, "swift demangle gave \(names.count) names for \(usrs.count) symbols")
        return Dictionary(uniqueKeysWithValues: zip(usrs, names))
    }

    /// This package's library modules (`Sources/<Name>` with a module in the build; the executables'
    /// folders are lower case).
    static func libraryModules() throws -> [String] {
        let sources = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Sources").path)
        return sources.filter { $0.first?.isUppercase == true }.filter {
            FileManager.default.fileExists(atPath: build.appendingPathComponent("Modules/\($0).swiftmodule").path)
        }.sorted()
    }

    @Test func whatEachProductShowsIsNameableAndMotionStaysSmall() throws {
        let output = try makeTemporaryDirectory("public-surface")
        defer { try? FileManager.default.removeItem(at: output) }
        let modules = try Self.libraryModules()
        #expect(modules.contains("Motion") && modules.contains("Fusion") && modules.contains("MotionSimulator"), "modules found: \(modules)")
        var graphs: [String: [Symbol]] = [:]
        for module in modules { graphs[module] = try Self.symbols(of: module, into: output) }
        #expect((graphs["Motion"]?.count ?? 0) > 100, "Motion's symbol graph looks empty")

        // Where each public type of ours lives: USR → (module, top-level type).
        var owner: [String: (module: String, type: String)] = [:]
        for (module, symbols) in graphs {
            for symbol in symbols { if let top = symbol.path.first { owner[symbol.usr] = (module, top) } }
        }
        let products = Set(Self.products.map(\.module))
        let exports = try Dictionary(uniqueKeysWithValues: Self.products.map { ($0.module, try Self.reexported($0.exports)) })

        // The modules that are not products show nothing public beyond what a product re-exports.
        let everyExport = Set(exports.values.joined().map { "\($0.module).\($0.type)" })
        var stray: [String: [String]] = [:]
        for module in modules where !products.contains(module) {
            for symbol in graphs[module] ?? [] where !everyExport.contains("\(module).\(symbol.path.first ?? "")") {
                stray[module, default: []].append(symbol.path.joined(separator: "."))
            }
        }
        #expect(stray.isEmpty, "public in a module that is not a product, yet re-exported by none (make it package): \(stray.mapValues { $0.sorted() })")

        var unknown = Set<String>()
        var unreachable: [String: [String: Set<String>]] = [:]   // product → type → the symbols naming it
        var counts: [String: Int] = [:]
        var parts: [String: Int] = [:]   // Motion's symbols by part of Core Motion
        for product in Self.products {
            // What the client sees: the product's own symbols and every member of each re-exported type.
            let shown = Set(([product.module] + product.alongside).flatMap { module in
                ([(module, nil as String?)] + (exports[module] ?? []).map { ($0.module, $0.type as String?) }).map { "\($0.0).\($0.1 ?? "*")" }
            })
            func isShown(_ module: String, _ type: String) -> Bool { shown.contains("\(module).*") || shown.contains("\(module).\(type)") }
            let own = graphs[product.module] ?? []
            let members = (exports[product.module] ?? []).flatMap { export in
                (graphs[export.module] ?? []).filter { $0.path.first == export.type }
            }
            counts[product.module] = own.count + members.count
            if product.module == "Motion" {
                for symbol in own + members {
                    let top = symbol.path.first ?? ""
                    let part = Self.motionSurfaceBudgets.first { $0.prefixes.contains { top.hasPrefix($0) } } ?? Self.motionSurfaceBudgets[0]
                    parts[part.part, default: 0] += 1
                }
            }
            for symbol in own + members {
                for usr in symbol.named {
                    guard let (module, type) = owner[usr] else { unknown.insert(usr); continue }
                    if !isShown(module, type) {
                        unreachable[product.module, default: [:]][module + "." + type, default: []].insert(symbol.path.joined(separator: "."))
                    }
                }
            }
        }
        #expect(unreachable.isEmpty, "public signatures name types a client of the product cannot import: \(unreachable)")

        // A type that is none of ours comes from a module a client has (the standard library's, …).
        let names = try Self.demangled(unknown.filter { $0.hasPrefix("s:") }.sorted())
        let foreign = names.filter { _, name in
            let module = name.split(separator: ".").first.map(String.init) ?? name
            return !Self.importable.contains(module)
        }
        #expect(foreign.isEmpty, "public signatures name types of modules a client does not have: \(foreign.values.sorted())")

        let motion = try #require(counts["Motion"])
        for budget in Self.motionSurfaceBudgets {
            let count = parts[budget.part] ?? 0
            #expect(count <= budget.limit, "a client of Motion sees \(count) public symbols of \(budget.part), more than \(budget.limit)")
        }
        print("Motion's public symbols by part:", Self.motionSurfaceBudgets.map { "\($0.part) \(parts[$0.part] ?? 0) of \($0.limit)" }.joined(separator: ", "))
        #expect(motion > 150, "Motion's surface looks incomplete: \(motion) symbols")
        print("public symbols a client sees:", counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    }
}
