import Foundation
import Motion
import MotionSimulation
import MotionTools
import Testing

/// The board the hardware tests run on, named by the environment:
///
/// - `SWIFT_MOTION_BOARD`: a built-in board id (`raspberry-pi-4b`, …), a board file path, or
///   `simulated`. Unset: `simulated`, so the same tests run in every normal test run, on the
///   simulated board in virtual time.
/// - `SWIFT_MOTION_BUS`: the bus device node (`/dev/i2c-1`) or number; unset: the board's default bus.
///
/// Pointed at a bus that does not exist here, every test is skipped with the reason.
enum HardwareEnvironment {
    static let boardVariable = "SWIFT_MOTION_BOARD"
    static let busVariable = "SWIFT_MOTION_BUS"

    static let target: Result<HardwareCheckTarget, HardwareCheckUnavailable> = {
        let environment = ProcessInfo.processInfo.environment
        return HardwareCheckTarget.resolve(board: environment[boardVariable], bus: environment[busVariable])
    }()

    /// The checks, run once for all tests (10 s of samples: virtual time on the simulated board).
    static let report: HardwareChecks.Report? = {
        guard case .success(let target) = target else { return nil }
        return HardwareChecks.run(on: target)
    }()

    static var isAvailable: Bool {
        if case .success = target { return true }
        return false
    }

    static var isSimulated: Bool {
        if case .success(let target) = target { return target.isSimulated }
        return false
    }

    static var skipReason: Comment {
        let environment = ProcessInfo.processInfo.environment
        switch target {
        case .success(let target):
            return Comment(rawValue: "running on \(target.description)")
        case .failure(let reason):
            return Comment(rawValue: "hardware tests skipped (\(boardVariable)=\(environment[boardVariable] ?? "unset"), "
                + "\(busVariable)=\(environment[busVariable] ?? "unset")): \(reason)")
        }
    }

    /// The result of the check called `name`; the test fails when it is missing or did not pass.
    @discardableResult
    static func passed(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> HardwareCheckResult {
        let report = try #require(report, sourceLocation: sourceLocation)
        let result = try #require(
            report.results.first { $0.name == name }, "no \(name) check in \(report.results)", sourceLocation: sourceLocation)
        #expect(result.status == .pass, "\(result)", sourceLocation: sourceLocation)
        return result
    }
}

@Suite(.enabled(if: HardwareEnvironment.isAvailable, HardwareEnvironment.skipReason))
struct HardwareTests {
    @Test func identifiesASupportedIMU() throws {
        let result = try HardwareEnvironment.passed("identity")
        if HardwareEnvironment.isSimulated {
            #expect(result.measured.contains("LSM6DSO/LSM6DSOX at 0x6A"), "\(result)")
            #expect(result.measured.contains("LIS3MDL at 0x1C"), "\(result)")
        }
    }

    @Test func selfTestsPass() throws {
        try HardwareEnvironment.passed("IMU self-test")
        let report = try #require(HardwareEnvironment.report)
        let magnetometer = report.results.first { $0.name == "magnetometer self-test" }
        #expect(magnetometer?.status != .fail, "\(String(describing: magnetometer))")
    }

    @Test func deliversOneHundredHertzWithinOnePercent() throws {
        try HardwareEnvironment.passed("100 Hz delivery")
        if HardwareEnvironment.isSimulated {
            // Virtual time: exactly one sample per 10 ms tick.
            #expect(HardwareEnvironment.report?.stream?.sampleCount == 1000)
        }
    }

    @Test func gravityIsOneGAtRest() throws {
        try HardwareEnvironment.passed("gravity at rest")
    }

    @Test func gyroBiasAndNoiseAtRestWithinDatasheetLimits() throws {
        try HardwareEnvironment.passed("gyro bias at rest")
        try HardwareEnvironment.passed("gyro noise at rest")
    }

    @Test func fifoFramesCarryConsecutiveIndices() throws {
        try HardwareEnvironment.passed("FIFO read")
        let indices = try #require(HardwareEnvironment.report).fifoIndices
        #expect(!indices.isEmpty)
        #expect(indices == Array(0..<indices.count))
    }

    @Test func boardLyingFlatIsFaceUp() throws {
        try HardwareEnvironment.passed("orientation lying flat")
        #expect(HardwareEnvironment.report?.stream?.orientation == .faceUp)
    }
}

/// How the board and bus are resolved; these run everywhere.
struct HardwareTargetResolutionTests {
    /// What resolving the Raspberry Pi 4 on `bus`, where no device node exists, says of the bus;
    /// nil (an issue recorded) when it fails otherwise or succeeds.
    func missingBusDetail(bus: String?) -> String? {
        let result = HardwareCheckTarget.resolve(board: "raspberry-pi-4b", bus: bus) { _ in false }
        guard case .failure(.missingBus(let detail)) = result else {
            Issue.record("expected a missing bus, got \(result)")
            return nil
        }
        return detail
    }

    @Test func aMissingBusIsASkipReasonNamingTheBus() {
        guard let detail = missingBusDetail(bus: "/dev/i2c-swift-motion-missing") else { return }
        #expect(detail.contains("/dev/i2c-swift-motion-missing does not exist"))
    }

    @Test func aBusNumberMeansItsDeviceNode() {
        guard let detail = missingBusDetail(bus: "7") else { return }
        #expect(detail.hasPrefix("/dev/i2c-7 does not exist"))
    }

    @Test func theBoardsDefaultBusIsUsedWhenNoneIsNamed() {
        guard let detail = missingBusDetail(bus: nil) else { return }
        #expect(detail.hasPrefix("/dev/i2c-1 does not exist"))
    }

    @Test func anUnknownBoardListsTheBuiltInOnes() {
        let result = HardwareCheckTarget.resolve(board: "no-such-board", bus: nil) { _ in true }
        guard case .failure(.unknownBoard(let detail)) = result else {
            Issue.record("expected an unknown board, got \(result)")
            return
        }
        #expect(detail.contains("raspberry-pi-4b"))
    }

    @Test func noBoardMeansTheSimulatedBoard() throws {
        let target = try HardwareCheckTarget.resolve(board: nil, bus: nil).get()
        #expect(target.isSimulated)
    }
}
