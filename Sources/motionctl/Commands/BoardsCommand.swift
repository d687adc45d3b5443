import ArgumentParser
import CommandSupport
import Foundation
import Motion

struct BoardsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "boards",
        abstract: "List the known boards, show one, or check a board file.",
        subcommands: [List.self, Show.self, Validate.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the built-in boards: id, name, default bus and addresses.")

        func run() throws {
            print(BoardsCommand.table(BoardCatalog.builtIn.boards))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show everything a board file says about one board.")

        @Argument(help: "The board's id, as listed by `motionctl boards`.")
        var id: String

        func validate() throws {
            if BoardCatalog.builtIn.board(id: id) == nil {
                let known = BoardCatalog.builtIn.boards.map(\.id).joined(separator: ", ")
                throw ValidationError("no board with id \"\(id)\"; known ids: \(known)")
            }
        }

        func run() throws {
            guard let board = BoardCatalog.builtIn.board(id: id) else { throw ExitCode.validationFailure }
            print(BoardsCommand.details(board))
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check your own board file against the schema (boards/README.md).")

        @Argument(help: "Path of the board file, named <id>.json.")
        var path: String

        func run() throws {
            do {
                let board = try BoardCatalog.loadBoard(at: path)
                print("\(path): valid board file for \(board.name) (\(board.id))")
            } catch {
                printError("error: \(error)")
                throw ExitCode.failure
            }
        }
    }

    static func table(_ boards: [Board]) -> String {
        let header = ["ID", "NAME", "DEFAULT BUS", "IMU", "MAGNETOMETER"]
        let rows = boards.map { board in
            [board.id, board.name, board.defaultBus?.device ?? "-",
             board.imuAddresses.map(\.description).joined(separator: " "),
             board.magnetometerAddresses.map(\.description).joined(separator: " ")]
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func details(_ board: Board) -> String {
        var lines = ["\(board.name) (\(board.id))"]
        lines.append("recognised by device-tree model: " + (board.match.isEmpty ? "(never detected)" : board.match.map { "\"\($0)\"" }.joined(separator: ", ")))
        lines.append("I2C buses:")
        for bus in board.i2cBuses {
            let marker = bus.isDefault ? " (default)" : ""
            lines.append("  \(bus.device)\(marker): SDA pin \(bus.sdaPin.header) \(bus.sdaPin.soc), SCL pin \(bus.sclPin.header) \(bus.sclPin.soc); \(bus.defaultSpeedHz / 1000) kHz default, \(bus.maxSpeedHz / 1000) kHz max")
        }
        lines.append("IMU addresses: " + board.imuAddresses.map(\.description).joined(separator: " "))
        lines.append("magnetometer addresses: " + board.magnetometerAddresses.map(\.description).joined(separator: " "))
        let m = board.mountMatrix.rowMajor.map { $0 == 0 ? 0 : $0 }.map { String(format: "%g", $0) }
        lines.append("mount matrix (chip → device): [\(m[0...2].joined(separator: " ")); \(m[3...5].joined(separator: " ")); \(m[6...8].joined(separator: " "))]")
        lines.append("setup: \(board.setup)")
        return lines.joined(separator: "\n")
    }
}
