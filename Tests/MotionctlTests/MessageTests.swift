import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue #27 item 11 and the output paths of item 2, as a person meets them: each input gets a
/// message that names the thing and the fix (and a non-zero exit), never "Missing value", a
/// Foundation error code or a silent acceptance; `--plot` at a FIFO or a symbolic link leaves the
/// node or link in place.
@Suite struct MessageTests {
    /// Arguments, then text the message must contain. `{dir}` is a temporary folder holding
    /// `fifo` (a FIFO), `loop` (a symbolic link to itself), `file` (a regular file) and `board.json`
    /// (a board file naming an unknown chip).
    static let cases: [(arguments: [String], message: String)] = [
        (["stream", "--simulated", "--seed", "-1"], "a seed is a whole number from 0 to 18446744073709551615"),
        (["probe", "--bus", "-1"], "--bus -1 is not a bus: pass a bus number from 0 to"),
        (["stream", "--bus", "-1"], "--bus -1 is not a bus"),
        (["stream", "--simulated", "--rate", "0x10"], "\"0x10\" is not a decimal number"),
        (["stream", "--simulated", "--faults", "imu:nack@1/"], "the repeat period must be seconds"),
        (["stream", "--simulated", "--faults", "imu:nack@1,"], "needs @SECONDS"),
        (["stream", "--simulated", "--faults", "imu:nack@0x1"], "must be seconds (a decimal number)"),
        (["stream", "--simulated", "--magnetometer", "none", "--faults", "mag:nack@1"], "--magnetometer none leaves the lsm6dsox without one"),
        (["probe", "--iio-root", "{dir}/missing"], "--iio-root {dir}/missing does not exist"),
        (["probe", "--iio-root", "{dir}/file"], "--iio-root {dir}/file is not a directory"),
        (["stream", "--source", "iio", "--iio-root", "{dir}/missing"], "--iio-root {dir}/missing does not exist"),
        (["boards", "validate", "{dir}/board.json"], "imuChip: \"NOPE\" is not a chip swift-motion knows"),
        (["calibrate", "magnetometer", "--simulated", "--non-interactive", "--plot", "{dir}"], "--plot {dir} is a directory"),
        (["calibrate", "magnetometer", "--simulated", "--non-interactive", "--plot", ""], "--plot \"\" is an empty path"),
        (["calibrate", "magnetometer", "--simulated", "--non-interactive", "--duration", "2", "--plot", "{dir}/fifo"], "is a FIFO with no reader"),
        (["record", "--simulated", "--output", "{dir}/loop"], "is a symbolic link that leads back to itself"),
        (["stream", "--simulated", "--replay", "{dir}/huge.csv"], "is 3 GiB: too large for"),
        (["boards", "validate", "{dir}/huge.json"], "is 3 GiB: too large for"),
    ]

    /// Store directories that cannot be one: a symbolic-link loop, a file.
    static let stores: [(make: String, message: String)] = [
        ("loop", "is a symbolic link that leads back to itself (a loop)"),
        ("file", "is not a directory (a file is in its place)"),
    ]

    static func folder() throws -> URL {
        let folder = try makeTemporaryDirectory("messages")
        try #require(mkfifo(folder.appendingPathComponent("fifo").path, 0o644) == 0)
        try #require(symlink("loop", folder.appendingPathComponent("loop").path) == 0)
        try Data("a file".utf8).write(to: folder.appendingPathComponent("file"))
        // A real board file, renamed, naming a chip nobody makes.
        let board = try String(contentsOfFile: StandardStreamTests.boardFile, encoding: .utf8)
            .replacingOccurrences(of: #""id": "raspberry-pi-4b","#, with: #""id": "board", "imuChip": "NOPE","#)
        try Data(board.utf8).write(to: folder.appendingPathComponent("board.json"))
        for name in ["huge.csv", "huge.json"] {
            let descriptor = open(folder.appendingPathComponent(name).path, O_WRONLY | O_CREAT, 0o644)
            try #require(descriptor >= 0 && ftruncate(descriptor, 3 << 30) == 0)
            close(descriptor)
        }
        return folder
    }

    @Test(arguments: cases)
    func eachInputGetsAMessageNamingTheFix(arguments: [String], message: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        let filled = arguments.map { $0.replacingOccurrences(of: "{dir}", with: folder.path) }
        let result = try BoardsCommandTests.run(filled, environment: environment)
        let expected = message.replacingOccurrences(of: "{dir}", with: folder.path)
        #expect(result.status != 0, "\(filled): exit 0")
        #expect(result.error.contains(expected), "\(filled): \(result.error)")
        #expect(!result.error.contains("Missing value") && !result.error.contains("NSCocoaErrorDomain"), "\(result.error)")
        // The nodes are what they were.
        var status = stat()
        #expect(lstat(folder.appendingPathComponent("fifo").path, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(folder.appendingPathComponent("loop").path, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
    }

    @Test(arguments: stores)
    func aStoreDirectoryThatCannotBeOneIsSaid(make: String, message: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("config/swift-motion")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        let store = config.appendingPathComponent("calibration").path
        if make == "loop" { try #require(symlink("calibration", store) == 0) } else { try Data("x".utf8).write(to: URL(fileURLWithPath: store)) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        for arguments in [["calibration", "show"], ["calibration", "clear", "--all"], ["calibrate", "gyroscope", "--simulated", "--non-interactive"]] {
            let result = try BoardsCommandTests.run(arguments, environment: environment)
            #expect(result.status == 1 && result.error.contains("\(store): \(message)"), "\(arguments): \(result.error)")
            #expect(!result.error.contains("NSCocoaErrorDomain") && !result.error.contains("same name"), "\(result.error)")
        }
    }

    /// `--plot` at a symbolic link writes the link's target and keeps the link; at a FIFO with a
    /// reader, writes into it and keeps the FIFO.
    @Test func thePlotFollowsALinkAndWritesIntoAFIFO() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        let link = folder.appendingPathComponent("plot.svg").path
        try #require(symlink("target.svg", link) == 0)
        try Data("old".utf8).write(to: folder.appendingPathComponent("target.svg"))
        let calibrate = ["calibrate", "magnetometer", "--simulated", "--non-interactive", "--duration", "2", "--plot"]
        let linked = try BoardsCommandTests.run(calibrate + [link], environment: environment)
        #expect(!linked.error.contains("error"), "\(linked.error)")
        var status = stat()
        #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK, "the link was replaced")
        #expect(try String(contentsOfFile: folder.appendingPathComponent("target.svg").path, encoding: .utf8).hasPrefix("<svg"))
        // A reader on the FIFO: the shell's `cat` copies it to a file.
        let fifo = folder.appendingPathComponent("fifo").path
        let copy = folder.appendingPathComponent("copy.svg").path
        let quoted = calibrate.joined(separator: " ")
        let piped = try RobustnessTests.shell("cat '\(fifo)' > '\(copy)' & motionctl \(quoted) '\(fifo)'; wait")
        #expect(!piped.error.contains("error"), "\(piped.error)")
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the FIFO was replaced")
        #expect(try String(contentsOfFile: copy, encoding: .utf8).hasPrefix("<svg"))
    }
}
