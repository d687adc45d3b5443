import Foundation
import TestSupport
import Testing

/// `motion-bench`'s own arguments: help is a usage text, not a run of every benchmark (which takes
/// minutes), and a mistyped argument is refused the same way.
@Suite("motion-bench arguments")
struct MotionBenchCommandTests {
    static let benchmarks = ["fusion", "timer", "sampler", "world", "driver", "recovery", "publish", "ros2", "sampler-virtual"]

    @Test(arguments: ["--help", "-h"])
    func helpPrintsTheUsageAndRunsNothing(_ flag: String) throws {
        let result = try runToEnd(try BoardsCommandTests.builtExecutable("motion-bench"), [flag])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("usage: motion-bench"), "\(result.output)")
        for name in Self.benchmarks { #expect(result.output.contains("  \(name) "), "\(name) in the usage") }
        #expect(!result.output.contains("=="), "a benchmark ran: \(result.output)")
        #expect(result.error.isEmpty, "\(result.error)")
    }

    @Test(arguments: [["--halp"], ["fusoin"], ["fusion", "7"]])
    func anUnknownArgumentIsRefusedWithTheUsage(_ arguments: [String]) throws {
        let result = try runToEnd(try BoardsCommandTests.builtExecutable("motion-bench"), arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty, "a benchmark ran: \(result.output)")
        let unknown = arguments.last ?? ""
        #expect(result.error.hasPrefix("motion-bench: unknown argument '\(unknown)'"), "\(result.error)")
        #expect(result.error.contains("usage: motion-bench"))
    }
}
