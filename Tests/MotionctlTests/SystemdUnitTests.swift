import Foundation
import Testing
import TestSupport
@testable import motionctl

/// The units in `systemd/` (docs/systemd.md): systemd itself accepts them, each runs a command
/// motionctl has with options from a variable the settings file sets, and a stop by SIGTERM
/// (status 143) counts as clean.
@Suite struct SystemdUnitTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("systemd")
    static let units = ["swift-motion-publish.service", "swift-motion-serve.service", "swift-motion-ros2.service"]
    static let systemdAnalyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    /// `Key=value` lines of a unit or an environment file (comments and sections left out).
    static func settings(_ text: String) -> [(key: String, value: String)] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    @Test(arguments: units)
    func eachUnitRunsACommandWithItsSettings(unit: String) throws {
        let settings = Self.settings(try Self.text(unit))
        let defaults = Set(Self.settings(try Self.text("swift-motion.default")).map(\.key))
        let start = try #require(settings.first { $0.key == "ExecStart" }?.value).split(separator: " ").map(String.init)
        #expect(start.first == "/usr/local/bin/motionctl")
        let command = try #require(start.dropFirst().first)
        #expect(Motionctl.configuration.subcommands.map { $0._commandName }.contains(command), "\(unit): motionctl has no \(command)")
        for variable in start.dropFirst(2) {
            #expect(variable.hasPrefix("$") && defaults.contains(String(variable.dropFirst())), "\(unit): \(variable) is not set in swift-motion.default")
        }
        #expect(settings.contains { $0.key == "SuccessExitStatus" && $0.value.split(separator: " ").contains("143") })
        #expect(settings.contains { $0.key == "SupplementaryGroups" && $0.value == "i2c" })
        #expect(settings.contains { $0.key == "EnvironmentFile" && $0.value == "-/etc/default/swift-motion" })
    }

    @Test(.enabled(if: systemdAnalyze != nil, "systemd-analyze is not installed"))
    func systemdAcceptsTheUnits() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("swift-motion-units-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // systemd checks that ExecStart's program exists: the built one stands in for /usr/local/bin's.
        let motionctl = try builtExecutable("motionctl").path
        var paths: [String] = []
        for unit in Self.units {
            let path = folder.appendingPathComponent(unit).path
            try Self.text(unit).replacingOccurrences(of: "/usr/local/bin/motionctl", with: motionctl).write(toFile: path, atomically: true, encoding: .utf8)
            paths.append(path)
        }
        let result = try runToEnd(URL(fileURLWithPath: try #require(Self.systemdAnalyze)), ["verify"] + paths)
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.error.isEmpty, "systemd-analyze verify: \(result.error)")
    }
}
