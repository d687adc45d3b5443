import Foundation
import TestSupport
import Testing

/// Core Motion programs ported with renames only (Tests/PortingPrograms), each built in Swift 6
/// and in Swift 5 language mode, run on the simulated board and checked for what they print.
/// The lifecycle programs (a stop from the main thread while the handler waits for it in
/// `DispatchQueue.main.sync`, a stop inside the handler, a stop from another handler's queue)
/// run 100 times in one process under a watchdog: a run that does not return ends the process
/// with "HUNG: …" (and the test's own timeout backs that up). Nothing here asserts on time.
@Suite("Core Motion programs ported with renames only")
struct PortingTests {
    enum Mode: String, CaseIterable, CustomStringConvertible {
        case swift6 = "porting-programs"
        case swift5 = "porting-programs-swift5"
        var description: String { self == .swift6 ? "Swift 6" : "Swift 5" }
    }

    /// The programs built next to the test bundle.
    static func executable(_ mode: Mode) throws -> URL {
        let candidates = [
            Bundle.main.bundleURL,
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ].map { $0.appendingPathComponent(mode.rawValue) }
        return try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "\(mode.rawValue) not built next to the tests: \(candidates)")
    }

    /// Runs one program; ends it after `timeout` seconds (a hang fails, it does not wait for ever).
    static func run(_ mode: Mode, _ program: String, runs: Int = 1, timeout: Double = 600) throws -> (status: Int32, lines: [String], error: String) {
        let result = try runToEnd(try executable(mode), [program, "\(runs)"], timeout: timeout)
        return (result.status, result.output.split(separator: "\n").map(String.init), result.error)
    }

    /// Runs `program` and checks it succeeded, printed nothing on standard error (the library
    /// prints nothing of its own), and printed `expected` lines (each the start of a line).
    @discardableResult
    static func check(_ mode: Mode, _ program: String, runs: Int = 1, expect expected: [String]) throws -> [String] {
        let result = try run(mode, program, runs: runs)
        let context = "\(mode) \(program): status \(result.status)\n\(result.lines.joined(separator: "\n"))\nstderr: \(result.error)"
        #expect(result.status == 0, "\(context)")
        #expect(result.error.isEmpty, "\(context)")
        for line in expected {
            #expect(result.lines.contains { $0.hasPrefix(line) }, "expected a line starting \"\(line)\"; \(context)")
        }
        return result.lines
    }

    @Test("availability, intervals and the frames offered", arguments: Mode.allCases)
    func availability(_ mode: Mode) throws {
        try Self.check(mode, "availability", expect: [
            "availability: accelerometer true, gyro true, magnetometer true, device motion true",
            "availability: active false false false false",
            "availability: this manager's frames xArbitraryZVertical xArbitraryCorrectedZVertical xMagneticNorthZVertical",
            "availability: with a location xArbitraryZVertical xArbitraryCorrectedZVertical xMagneticNorthZVertical xTrueNorthZVertical",
            "availability: reference frame xArbitraryZVertical, shows movement display false",
            "availability: intervals 0.0167, clamped to the shortest true",
        ])
        let lines = try Self.check(mode, "availability", expect: ["availability: default device frames xArbitraryZVertical"])
        #expect(lines.contains { $0.hasPrefix("availability: default device frames") && !$0.contains("xTrueNorth") })
    }

    @Test("reference frames: offered ones give a heading, true north asks for a location", arguments: Mode.allCases)
    func referenceFrames(_ mode: Mode) throws {
        let lines = try Self.check(mode, "reference-frames", expect: [
            "reference-frames: xArbitraryZVertical offered true: heading none (-1), frame in use xArbitraryZVertical",
            "reference-frames: xArbitraryCorrectedZVertical offered true: heading none (-1), frame in use xArbitraryCorrectedZVertical",
            "reference-frames: xMagneticNorthZVertical offered true: heading 0–360°, frame in use xMagneticNorthZVertical",
            "reference-frames: xTrueNorthZVertical offered false: error trueNorthNotAvailable, CMErrorDomain 102: true north is not available without a location",
            "reference-frames: xTrueNorthZVertical offered true: heading 0–360°, frame in use xTrueNorthZVertical",
        ])
        #expect(lines.count == 5, "\(lines)")
    }

    @Test("orientation notifications: each face once, UIDeviceOrientation's raw values", arguments: Mode.allCases)
    func orientationNotifications(_ mode: Mode) throws {
        let lines = try Self.check(mode, "orientation-notifications", expect: [])
        #expect(lines == [
            "orientation-notifications: faceUp (5): flat: keep it",
            "orientation-notifications: faceDown (6): flat: keep it",
            "orientation-notifications: portrait (1): rotate the interface",
            "orientation-notifications: portraitUpsideDown (2): rotate the interface",
            "orientation-notifications: landscapeLeft (3): rotate the interface",
            "orientation-notifications: landscapeRight (4): rotate the interface",
            "orientation-notifications: last landscapeRight, portrait false, landscape true; UIDeviceOrientation(rawValue: 1) is portrait",
        ])
    }

    @Test("every MotionError's localizedDescription says what happened and what to do, with Core Motion's code", arguments: Mode.allCases)
    func errors(_ mode: Mode) throws {
        let lines = try Self.check(mode, "errors", expect: [
            "errors: notAvailable CMErrorDomain 109: device not found: ",
            "errors: unknown CMErrorDomain 103: bus error: ",
            "errors: notAuthorized CMErrorDomain 111: bus error: /dev/i2c-1: permission denied",
            "errors: unknown CMErrorDomain 103: device reset: ",
            "errors: notAvailable CMErrorDomain 109: device unavailable: ",
            "errors: unknown CMErrorDomain 103: sensor error: ",
            "errors: invalidParameter CMErrorDomain 107: calibration needed: ",
            "errors: trueNorthNotAvailable CMErrorDomain 102: true north is not available",
            "errors: deviceRequiresMovement CMErrorDomain 101: the device requires movement",
            "errors: invalidParameter CMErrorDomain 107: invalid update interval -1.0 s",
            "errors: notAvailable CMErrorDomain 109: no magnetometer on this board",
            "errors: unknown CMErrorDomain 103: IIO device error: ",
            "errors: matched trueNorthNotAvailable by name",
            "errors: Core Motion's code 102 (CMErrorTrueNorthNotAvailable) compares equal",
        ])
        // Each says what to do: a fix after the "what happened" part.
        let fixes = ["motionctl", "check", "set ", "give ", "turn ", "clear", "ask ", "add yourself", "resume", "go on"]
        for line in lines where line.contains("CMErrorDomain") {
            #expect(fixes.contains { line.contains($0) }, "no fix in: \(line)")
            #expect(!line.contains("could not be completed"))
        }
    }

    /// A program whose check is the lines it prints (each the start of a line).
    struct Program: CustomStringConvertible, Sendable {
        let name: String, title: String, runs: Int, expected: [String]
        init(_ name: String, _ title: String, runs: Int = 1, expect expected: [String]) {
            (self.name, self.title, self.runs, self.expected) = (name, title, runs, expected)
        }
        var description: String { title }
    }

    /// The programs checked by their lines alone; the lifecycle ones run 100 times, under a watchdog.
    static let programs: [Program] = [
        Program("pull", "pull: a Timer reads the latest values; a refused frame leaves the value nil and says why", expect: [
            "pull: readings seen: accelerometer true, gyro true, magnetometer true, device motion true; lying flat: true",
            "pull: last error after a good start: deviceRequiresMovement",
            "pull: true north without a location: no data; trueNorthNotAvailable (102): true north is not available without a location: set MotionManager.location",
        ]),
        Program("push-operation-queue", "push to an OperationQueue and to .main (OperationQueue.main)", expect: [
            "push-operation-queue: OperationQueue: 50 device-motion updates in 1 s at 50 Hz, in order: true, errors: 0",
            "push-operation-queue: .main: 100 accelerometer updates at 100 Hz, all on the main thread: true",
        ]),
        Program("push-dispatch-queue", "push to a serial and a global DispatchQueue", expect: [
            "push-dispatch-queue: serial queue: 100 gyro updates, in order: true",
            "push-dispatch-queue: global queue: magnetometer updates in order: true, never two at once: true",
        ]),
        Program("relative-attitude", "relative attitude as iOS writes it: copy() as? Attitude, multiply(byInverseOf:) on the update's attitude, drawView's pull", expect: [
            "relative-attitude: 420 updates on .main; first relative to its own copy: 0°",
            "relative-attitude: after the flip: 180° from the reference; the reference copy kept its own yaw: true",
            "relative-attitude: drawView's relative m33 -1.0; a later read of deviceMotion is its own, not relative: true",
        ]),
        Program("core-motion-members", "each Core Motion member the issue found missing builds with renames only and means what it means there", expect: [
            "core-motion-members: the default device offers xMagneticNorthZVertical",
            "core-motion-members: attitudeReferenceFrame xArbitraryZVertical",
            "core-motion-members: showsDeviceMovementDisplay false",
            "core-motion-members: sensorLocation default (0)",
            "core-motion-members: rotationMatrix lying flat: m11 1.0 m22 1.0 m33 1.0, m12 m13 m21 m23 m31 m32 0.0 0.0 0.0 0.0 0.0 0.0",
            "core-motion-members: gravity z -1.0 = -m33",
            "core-motion-members: field accuracy uncalibrated (-1)",
            "core-motion-members: Quaternion(x:y:z:w:) w 1.0; relative to itself 0°; relative to identity unchanged true",
            "core-motion-members: handlers on .main got 40 updates",
            "core-motion-members: DeviceOrientation(rawValue: 3) landscapeLeft, valid interface orientation true, faceUp 5 valid false, landscape true, portrait false, flat false",
        ]),
        Program("pedometer-activity", "CMPedometer and CMMotionActivityManager code: live and queried steps agree, pauses and resumes, walking seen, no handler after a stop", expect: [
            "pedometer: available steps true, distance true, floors true, pace true, cadence true, events true",
            "pedometer: live 149 steps, query 149, same true; 0.705 m a step; floors counted",
            "pedometer: cadence while walking 1.9 steps/s, pace 0.7",
            "pedometer: events resume pause resume pause resume pause resume pause",
            "pedometer: after stopUpdates no handler ran: true",
            "activity: seen stationary walking; automotive or cycling false; query has the walks, oldest first true",
        ]),
        Program("error-codes", "error codes compared with Core Motion's constants by their renamed names; frames as an option set", expect: [
            "error-codes: frames rawValue 7, magnetic north true, compass frames true",
            "error-codes: true north is not offered without a location",
            "error-codes: the handler's error is CMErrorTrueNorthNotAvailable by domain and code",
            "error-codes: switch matched MotionErrorTrueNorthNotAvailable",
            "error-codes: CMError(rawValue: 999) reads as unknown: true",
        ]),
        Program("owner-handlers", "handlers that capture their owner: a @MainActor view controller's closure and method on .main, a model that is not Sendable", expect: [
            "owner-handlers: a @MainActor view controller on .main: 50 device-motion updates at 50 Hz (a closure capturing self), 25 accelerometer updates at 25 Hz (a method), no error: true",
            "owner-handlers: a model that is not Sendable, on its own queue: 100 gyro updates at 100 Hz",
        ]),
        Program("altitude", "CMAltimeter: availability, relative altitude on .main through NSNumber, absolute altitude's accuracy", expect: [
            "altitude: authorized true; 25 relative updates in 25 s on the main thread: true",
            "altitude: relative altitude at the first landing 3 m, pressure about 101 kPa",
            "altitude: 25 absolute updates; accuracy without a reference over 50 m: true; precision under 0.1 m: true",
        ]),
        Program("shake-lifecycle", "a shake detector as iOS writes it stops its updates from inside its handler, 100 start/stop cycles on one manager", runs: 100, expect: [
            "shake-lifecycle: 100 of 100 cycles stopped from inside the handler; updates after a stop: 0; peak above 1 g: true",
        ]),
        Program("compass-heading", "a compass screen as iOS writes it: at rest after a flip and uncalibrated, the heading holds still", expect: [
            "compass-heading: 250 updates; still and uncalibrated for 200, the heading moved less than 1°: true",
            "compass-heading: accuracy changes: 0; every rise at least 2 s after the previous change: true",
        ]),
        Program("main-queue-hop", "the main-queue hop: a stop from the main thread while the handler waits in DispatchQueue.main.sync returns, 100 runs", runs: 100, expect: [
            "main-queue-hop: 100 of 100 runs returned; handlers started after the stop: 0",
        ]),
        Program("stop-in-handler", "a stop (or the manager's release) inside a handler returns, 100 runs", runs: 100, expect: [
            "stop-in-handler: 100 of 100 runs stopped from inside a handler and returned; handlers started after the stop: 0",
        ]),
        Program("stop-from-another-queue", "a stop from another handler's queue that the handler waits for returns, 100 runs", runs: 100, expect: [
            "stop-from-another-queue: 100 of 100 runs returned; handlers started after the stop: 0",
        ]),
    ]

    @Test("what each program prints", arguments: Mode.allCases, programs)
    func prints(_ mode: Mode, _ program: Program) throws {
        try Self.check(mode, program.name, runs: program.runs, expect: program.expected)
    }
}
