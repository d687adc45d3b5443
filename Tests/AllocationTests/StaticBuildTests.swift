import Foundation
import Testing

/// The release `motionctl` that `.ci/run` builds as docs/raspberry-pi.md says
/// (`swift build -c release --static-swift-stdlib --product motionctl`) needs no Swift runtime on
/// the machine it is copied to: `ldd` lists only the C libraries it binds (libi2c, libmosquitto,
/// Cyclone DDS's libddsc and theirs), OpenSSL and the C and C++ runtimes. Skipped when the release
/// `motionctl` is not built (or `ldd` is missing).
@Suite("the self-contained release build")
struct StaticBuildTests {
    static let motionctl = AllocationTests.packageRoot.appendingPathComponent(".build/release/motionctl")
    static let ldd = ["/usr/bin/ldd", "/bin/ldd"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var isBuilt: Bool { ldd != nil && FileManager.default.isExecutableFile(atPath: motionctl.path) }

    /// The Swift toolchain's shared libraries: the runtime, Foundation, Dispatch, XCTest's.
    static let swiftRuntime = ["libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime", "libXCTest", "libicu"]

    @Test(.enabled(if: isBuilt, "no .build/release/motionctl: swift build -c release --static-swift-stdlib --product motionctl"))
    func needsNoSwiftRuntime() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.ldd))
        process.arguments = [Self.motionctl.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let libraries = text.split(separator: "\n").compactMap { $0.split(whereSeparator: \.isWhitespace).first.map(String.init) }
        #expect(libraries.contains { $0.hasPrefix("libi2c.so") }, "\(text)")
        let swift = libraries.filter { library in Self.swiftRuntime.contains { library.hasPrefix($0) } }
        #expect(swift.isEmpty, "motionctl needs the Swift runtime's \(swift): \(text)")
        #expect(!text.contains("not found"), "\(text)")
    }
}
