import Foundation
import Motion
import MotionSimulation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A board or calibration file that is not a readable file is named for what it is (never
/// "NSCocoaErrorDomain error 256"), with what to pass instead.
@Suite struct FileMessageTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-messages-\(UUID())")

    @Test func boardFilesThatAreNotFilesSayWhatTheyAre() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let loopA = folder.appendingPathComponent("a.json").path, loopB = folder.appendingPathComponent("b.json").path
        #expect(symlink(loopB, loopA) == 0 && symlink(loopA, loopB) == 0)
        let cases: [(String, String)] = [
            (folder.path, "is a directory"), (loopA, "is a symbolic link that leads back to itself"),
            ("/dev/null", "is a device node, not a file"), (folder.appendingPathComponent("gone.json").path, "does not exist"),
        ]
        for (path, problem) in cases {
            let error = try #require(throws: BoardFileError.self) { try BoardCatalog.loadBoard(at: path) }
            #expect(error.description.contains(problem) && !error.description.contains("NSCocoaErrorDomain"), "\(error)")
        }
        // Through the id-or-path resolution too: a looping link is a file, not an unknown id.
        let resolved = try #require(throws: BoardFileError.self) { try BoardCatalog.resolve(loopA) }
        #expect(resolved.description.contains("leads back to itself"), "\(resolved)")
    }

    @Test func aCalibrationFileThatIsADirectorySaysSo() throws {
        let store = CalibrationStore(directory: folder)
        let sensor = SensorIdentity(board: "test", chip: "TEST", bus: "test", address: 0x42)
        try FileManager.default.createDirectory(at: store.url(for: sensor), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let error = try #require(throws: CalibrationStoreError.self) { _ = try store.load(sensor) }
        #expect(error.detail.contains("is a directory") && !error.description.contains("NSCocoaErrorDomain"), "\(error)")
    }
}
