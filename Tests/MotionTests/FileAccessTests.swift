import FileAccess
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The one way files are written (`OutputFile`) and read (`FileContents`): whatever is at the
/// path, a regular file is replaced atomically, a device or FIFO written into and never replaced,
/// a link followed and kept, anything else refused with a message; every read has a size bound.
@Suite struct FileAccessTests {
    /// What is at the path before the write, and what must hold after it.
    enum Destination: String, CaseIterable, Sendable {
        case nothing, regularFile, symbolicLink, fifoWithReader, fifoWithoutReader, devNull
        case directory, danglingLink, linkLoop, emptyPath, missingFolder, socket
    }

    static let bytes = Array("<svg>new</svg>\n".utf8)

    /// Creates the destination in `folder`; returns the path to write.
    static func make(_ destination: Destination, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("out.svg").path
        switch destination {
        case .nothing: break
        case .regularFile:
            try Data("old".utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
        case .symbolicLink:
            try Data("old".utf8).write(to: folder.appendingPathComponent("target.svg"))
            try #require(symlink("target.svg", path) == 0)
        case .fifoWithReader, .fifoWithoutReader: try #require(mkfifo(path, 0o644) == 0)
        case .devNull: return "/dev/null"
        case .directory: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .danglingLink: try #require(symlink("missing.svg", path) == 0)
        case .linkLoop: try #require(symlink("out.svg", path) == 0)
        case .emptyPath: return ""
        case .missingFolder: return folder.appendingPathComponent("no-such-folder/out.svg").path
        case .socket:
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            close(descriptor)
            try #require(bound == 0)
        }
        return path
    }

    /// The file type at `path` without following a link.
    static func type(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    @Test(arguments: Destination.allCases)
    func writingKeepsWhatIsNotAFile(destination: Destination) throws {
        try withTemporaryDirectory("output-file") { folder in
            let path = try Self.make(destination, in: folder)
            let typeBefore = path.isEmpty ? nil : Self.type(path)
            // A reader on the FIFO, on its own thread, for as long as the write takes.
            let received = FIFOReader(path: destination == .fifoWithReader ? path : nil)
            let failure: OutputFile.Failure?
            do throws(OutputFile.Failure) {
                try OutputFile.write(Self.bytes, to: path, what: "the plot")
                failure = nil
            } catch {
                failure = error
            }
            switch destination {
            case .nothing, .regularFile:
                #expect(failure == nil, "\(String(describing: failure))")
                #expect(Self.type(path) == S_IFREG)
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.bytes))
                if destination == .regularFile {
                    var status = stat()
                    stat(path, &status)
                    #expect(status.st_mode & 0o777 == 0o600, "the file's permissions are kept")
                }
            case .symbolicLink:
                #expect(failure == nil, "\(String(describing: failure))")
                #expect(Self.type(path) == S_IFLNK, "the link is kept")
                #expect(try Data(contentsOf: folder.appendingPathComponent("target.svg")) == Data(Self.bytes), "its target is written")
            case .fifoWithReader:
                #expect(failure == nil, "\(String(describing: failure))")
                if failure == nil { #expect(received.wait() == Self.bytes) }
            case .devNull:
                #expect(failure == nil, "\(String(describing: failure))")
            case .fifoWithoutReader, .directory, .danglingLink, .linkLoop, .emptyPath, .missingFolder, .socket:
                let failure = try #require(failure, "\(destination) was written")
                let expected: String = switch destination {
                case .fifoWithoutReader: "is a FIFO with no reader"
                case .directory: "is a directory"
                case .danglingLink: "which does not exist"
                case .linkLoop: "leads back to itself"
                case .emptyPath: "is an empty path"
                case .missingFolder: "does not exist"
                default: "is a socket"
                }
                #expect(failure.problem.contains(expected), "\(failure)")
                #expect(failure.description.contains("the plot"), "the message says what to pass: \(failure)")
            }
            // Whatever was there keeps its type; no temporary file is left behind.
            if let typeBefore { #expect(Self.type(path) == typeBefore, "\(destination) changed type") }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }
            #expect(leftovers.isEmpty, "\(leftovers)")
            // The early check (before a long run) agrees on what is refused outright.
            let early: OutputFile.Failure?
            do throws(OutputFile.Failure) { try OutputFile.preflight(path, what: "the plot"); early = nil } catch { early = error }
            let refusedEarly: Set<Destination> = [.directory, .danglingLink, .linkLoop, .emptyPath, .missingFolder, .socket]
            #expect((early != nil) == refusedEarly.contains(destination), "\(destination): \(String(describing: early))")
        }
    }

    /// Reads a FIFO to its end on a thread of its own.
    final class FIFOReader: @unchecked Sendable {
        private var bytes: [UInt8] = []
        private let done = DispatchSemaphore(value: 0)

        init(path: String?) {
            guard let path else { return }
            let ready = DispatchSemaphore(value: 0)
            Thread.detachNewThread { [self] in
                // Non-blocking open succeeds at once for a reader; then wait for data as usual.
                let descriptor = open(path, O_RDONLY | O_NONBLOCK)
                ready.signal()
                defer { done.signal() }
                guard descriptor >= 0 else { return }
                defer { close(descriptor) }
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(descriptor, &buffer, buffer.count)
                    if count > 0 { bytes += buffer[0..<count] } else if count == 0, !bytes.isEmpty { return } else if count < 0 { return } else { usleep(1000) }
                }
            }
            ready.wait()
        }

        func wait() -> [UInt8] {
            done.wait()
            return bytes
        }
    }

    /// A sparse file of 3 GB (it costs no disk) where a small file is expected: refused from its
    /// size, with the bound, before anything is allocated — for every kind of file read.
    @Test(arguments: [
        ("a calibration file", FileContents.Limit.calibrationRecord), ("a board file", FileContents.Limit.boardFile),
        ("a recording", FileContents.Limit.recording), ("a BROAD trial", FileContents.Limit.broadTrial),
    ])
    func aHugeFileIsRefusedWithTheBound(what: String, limit: Int) throws {
        try withTemporaryDirectory("huge-file") { folder in
            let path = folder.appendingPathComponent("huge").path
            let descriptor = open(path, O_WRONLY | O_CREAT, 0o644)
            try #require(descriptor >= 0 && ftruncate(descriptor, 3 << 30) == 0)
            close(descriptor)
            let failure = try #require(throws: FileContents.Failure.self) { _ = try FileContents.read(path, what: what, limit: limit) }
            #expect(failure.problem.contains("3 GiB") && failure.problem.contains(FileContents.describe(bytes: limit)), "\(failure)")
            // At the bound exactly it is read.
            let fitting = open(path, O_WRONLY | O_TRUNC)
            try #require(fitting >= 0 && ftruncate(fitting, off_t(min(limit, 1 << 20))) == 0)
            close(fitting)
            #expect(try FileContents.read(path, what: what, limit: limit).count == min(limit, 1 << 20))
        }
    }
}
