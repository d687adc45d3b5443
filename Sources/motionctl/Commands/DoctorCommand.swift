import ArgumentParser
import CommandSupport
import Foundation
import I2C
import LinuxI2C
import Motion
import MotionTools

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this machine: board, I2C, permissions, what answers on the bus and how reliably, calibration.",
        discussion: "Each problem is printed with its fix. Exits with status 1 when a check fails."
    )

    @Option(help: "A built-in board id (`motionctl boards`) or the path of your own board file, instead of detecting the board.")
    var board: String?

    /// The spelling of --board before every command took the same option.
    @Option(name: .customLong("board-file"), help: .hidden)
    var boardFile: String?

    @Option(name: .customLong("root"), help: .hidden)
    var root: String = "/"

    func run() throws {
        let named = try CommandFailure.reporting { try (board ?? boardFile).map(SourceOptions.resolveBoard) }
        let checks = Doctor(fileSystemRoot: root, board: named, scanBus: Self.scan, openBus: Self.open).run()
        print(checks.map(\.description).joined(separator: "\n"))
        if checks.contains(where: { $0.status == .error }) {
            throw ExitCode.failure
        }
    }

    /// The bus itself, for the identity reads that follow the scan.
    @Sendable static func open(_ device: String) throws(I2CError) -> any I2CBus {
        try LinuxI2CBus(path: device)
    }

    /// The addresses that answer on `device`, scanned the way `motionctl probe` does.
    @Sendable static func scan(_ device: String) throws(I2CError) -> [I2CAddress] {
        scanBus(try LinuxI2CBus(path: device))
    }
}
