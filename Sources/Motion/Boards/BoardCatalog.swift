import FileAccess
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The boards the library knows: the built-in ones (embedded from `boards/*.json`, so an installed
/// binary needs no repository) plus any a user loads from their own board file.
public struct BoardCatalog: Sendable, Equatable {
    /// In order: built-in boards sorted by id, then added ones.
    package private(set) var boards: [Board]

    package init(boards: [Board]) {
        self.boards = boards
    }

    /// The built-in boards that validate. A built-in file that does not validate is left out and
    /// reported in `builtInProblems` (the test suite keeps that list empty).
    public static var builtIn: BoardCatalog { builtInResult.catalog }

    /// Validation errors of built-in board files; empty in a correct build.
    package static var builtInProblems: [BoardFileError] { builtInResult.problems }

    private static let builtInResult = loadBuiltIn()

    /// The id of the board used when the machine is not a known board.
    package static let simulatedID = "simulated"

    /// The board with this id.
    public func board(id: String) -> Board? {
        boards.first { $0.id == id }
    }

    /// This catalog with `board` added, replacing a board of the same id.
    package func adding(_ board: Board) -> BoardCatalog {
        var copy = self
        if let index = copy.boards.firstIndex(where: { $0.id == board.id }) {
            copy.boards[index] = board
        } else {
            copy.boards.append(board)
        }
        return copy
    }

    /// The board whose `match` recognises the device-tree model string; when several do, the one
    /// with the longest matching entry. `nil` for `nil` (not a device-tree machine) or an unknown model.
    package func detect(model: String?) -> Board? {
        guard let model else { return nil }
        return boards
            .compactMap { board in board.matchLength(model: model).map { (board, $0) } }
            .max { $0.1 < $1.1 }?.0
    }

    /// The board this machine is, from its device-tree model; `nil` when it is not a device-tree
    /// machine or not a known board (callers then use the `simulated` board or ask for a board file).
    package func detectMachine(fileSystemRoot: String = "/") -> Board? {
        detect(model: Self.readDeviceTreeModel(fileSystemRoot: fileSystemRoot))
    }

    /// `detect(model:)` over the built-in boards.
    package static func detect(model: String?) -> Board? {
        builtIn.detect(model: model)
    }

    /// The model string as the board names itself: the kernel's file ends in a NUL byte.
    package static func normalizedModel(_ raw: String) -> String {
        raw.trimmingCharacters(in: CharacterSet(charactersIn: "\0").union(.whitespacesAndNewlines))
    }

    /// The places the device-tree model string can be read from, relative to the filesystem root.
    package static let modelPaths = ["proc/device-tree/model", "sys/firmware/devicetree/base/model"]

    /// The machine's device-tree model string, or `nil` when this is not a device-tree machine
    /// (e.g. an x86 PC). `fileSystemRoot` lets tests point at a fake tree.
    package static func readDeviceTreeModel(fileSystemRoot: String = "/") -> String? {
        for path in modelPaths {
            let url = URL(fileURLWithPath: fileSystemRoot).appendingPathComponent(path)
            // Best effort: a missing, unreadable or oversized model file means "no model".
            if let data = try? FileContents.read(url.path, what: "the device-tree model", limit: FileContents.Limit.deviceTreeModel) {
                let model = normalizedModel(String(decoding: data, as: UTF8.self))
                if !model.isEmpty { return model }
            }
        }
        return nil
    }

    /// A board as a person names it (`--board`, `SWIFT_MOTION_BOARD`): a built-in id, else the
    /// path of a board file. The error names the file, or the id and the built-in ids to pick from.
    public static func resolve(_ idOrPath: String) throws(BoardFileError) -> Board {
        if let builtIn = builtIn.board(id: idOrPath) { return builtIn }
        // Anything on disk under that name (even a dangling or looping link) is read as a file, so
        // its error says what it is; otherwise the name was meant as an id.
        var status = stat()
        guard !idOrPath.isEmpty, lstat(idOrPath, &status) == 0 else {
            let ids = builtIn.boards.map(\.id).joined(separator: ", ")
            throw BoardFileError(
                kind: .unreadable, file: idOrPath, keyPath: "", problem: "no built-in board \"\(idOrPath)\" and no such file",
                fix: "pass one of \(ids) (`motionctl boards`), or the path of a board file")
        }
        return try loadBoard(at: idOrPath)
    }

    /// A bus as a person names it: `1` is `/dev/i2c-1`; a device node stays as it is.
    package static func busDevice(_ nameOrNumber: String) -> String {
        !nameOrNumber.isEmpty && nameOrNumber.allSatisfy(\.isNumber) ? "/dev/i2c-\(nameOrNumber)" : nameOrNumber
    }

    /// Loads and validates a user's board file. Its `id` must equal the file name without `.json`.
    public static func loadBoard(at path: String) throws(BoardFileError) -> Board {
        let data: Data
        do throws(FileContents.Failure) {
            data = try FileContents.read(
                path, what: "a board file (a .json file; `motionctl boards` lists the built-in ids)", limit: FileContents.Limit.boardFile)
        } catch {
            throw BoardFileError(kind: .unreadable, file: path, keyPath: "", problem: error.problem, fix: error.fix)
        }
        return try parseBoard(data, file: path)
    }

    /// Validates a board file's bytes; `file` names it in errors and gives the expected id.
    package static func parseBoard(_ data: Data, file: String) throws(BoardFileError) -> Board {
        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        return try BoardFileParser(file: file).board(from: data, expectedID: stem)
    }

    private static func loadBuiltIn() -> (catalog: BoardCatalog, problems: [BoardFileError]) {
        var boards: [Board] = []
        var problems: [BoardFileError] = []
        for (file, json) in BuiltInBoards.files {
            do {
                let stem = String(file.dropLast(".json".count))
                let parser = BoardFileParser(file: "boards/\(file) (built in)")
                boards.append(try parser.board(from: Data(json.utf8), expectedID: stem))
            } catch {
                problems.append(error)
            }
        }
        return (BoardCatalog(boards: boards.sorted { $0.id < $1.id }), problems)
    }
}
