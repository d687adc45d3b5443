import ArgumentParser
import Foundation
import I2C
import LinuxI2C
import Motion

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check this machine: board, I2C, permissions, what answers on the bus, calibration.",
        discussion: "Each problem is printed with its fix. Exits with status 1 when a check fails."
    )

    @Option(name: .customLong("board-file"), help: "Use this board file instead of detecting the board.")
    var boardFile: String?

    @Option(name: .customLong("root"), help: .hidden)
    var root: String = "/"

    func run() throws {
        var board: Board?
        if let boardFile {
            do {
                board = try BoardCatalog.loadBoard(at: boardFile)
            } catch {
                FileHandle.standardError.write(Data("error: \(error)\n".utf8))
                throw ExitCode.failure
            }
        }
        let checks = Doctor(fileSystemRoot: root, board: board, scanBus: Self.scan).run()
        print(checks.map(\.description).joined(separator: "\n"))
        if checks.contains(where: { $0.status == .error }) {
            throw ExitCode.failure
        }
    }

    /// The addresses that answer on `device`, scanned the way `motionctl probe` does.
    @Sendable static func scan(_ device: String) throws(I2CError) -> [I2CAddress] {
        scanBus(try LinuxI2CBus(path: device))
    }
}
