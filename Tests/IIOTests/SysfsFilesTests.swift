@testable import IIO
import Testing

/// The read/write loop under every sysfs access: partial transfers continue, EOF ends a read, and
/// a write that stops moving bytes is an error rather than a loop that never ends.
@Suite struct SysfsFilesTests {
    @Test func partialStepsAddUpToTheWholeCount() throws {
        var offsets: [Int] = []
        let moved = try SysfsFiles.transfer(10, path: "p", attempted: "write", stopsAtEndOfFile: false) { done in
            offsets.append(done)
            return 4
        }
        #expect(moved == 12)
        #expect(offsets == [0, 4, 8])
    }

    @Test func aReadStopsAtEndOfFile() throws {
        var steps = 0
        let moved = try SysfsFiles.transfer(10, path: "p", attempted: "read", stopsAtEndOfFile: true) { done in
            steps += 1
            return done == 0 ? 3 : 0
        }
        #expect(moved == 3 && steps == 2)
    }

    @Test func aWriteThatMovesNothingIsAnErrorNamingTheFile() {
        var steps = 0
        #expect {
            _ = try SysfsFiles.transfer(2, path: "/sys/bus/iio/devices/iio:device0/buffer/enable", attempted: "write \"1\"",
                                        stopsAtEndOfFile: false) { done in
                steps += 1
                return done == 0 ? 1 : 0
            }
        } throws: { error in
            guard let error = error as? IIOError else { return false }
            return error.kind == .io && error.path.hasSuffix("buffer/enable") && error.detail.contains("1 of 2 bytes")
        }
        #expect(steps == 2)
    }
}
