import Dispatch
import Foundation

// Programs written the way Core Motion's documentation and the common tutorials use
// `CMMotionManager`, ported to this library with renames only (`CMMotionManager` → `MotionManager`,
// `CMDeviceMotion` → `DeviceMotion`, …; docs/porting-from-core-motion.md), each run on the
// simulated board. `porting-programs NAME [RUNS]` runs one; PortingTests runs them all, built in
// Swift 6 and in Swift 5 language mode, and checks what they print.
//
// The program runs on a thread of its own; the main thread runs the main run loop, which serves
// the main queue as an application's does, so handlers can hop to it and the main thread can stop
// updates while they wait for it. (Not `dispatchMain()`: that ends the main thread and serves the
// main queue from a worker thread.)

enum Programs {
    static let all: [(name: String, run: @Sendable (Int) -> Bool)] = [
        ("availability", availability),
        ("pull", pull),
        ("push-operation-queue", pushToOperationQueue),
        ("push-dispatch-queue", pushToDispatchQueue),
        ("reference-frames", referenceFrames),
        ("relative-attitude", relativeAttitude),
        ("stop-in-handler", stopInHandler),
        ("main-queue-hop", mainQueueHop),
        ("stop-from-another-queue", stopFromAnotherQueue),
        ("orientation-notifications", orientationNotifications),
        ("errors", errors),
        ("error-codes", errorCodes),
        ("owner-handlers", ownerHandlers),
        ("shake-lifecycle", shakeLifecycle),
        ("compass-heading", compassHeading),
        ("core-motion-members", coreMotionMembers),
        ("altitude", altitude),
        ("pedometer-activity", pedometerActivity),
    ]
}

func launch(_ arguments: [String]) -> Never {
    guard let name = arguments.first, let program = Programs.all.first(where: { $0.name == name }) else {
        print("usage: porting-programs NAME [RUNS]; NAME is one of: \(Programs.all.map(\.name).joined(separator: ", "))")
        exit(2)
    }
    let runs = arguments.count > 1 ? Int(arguments[1]) ?? 1 : 1
    Thread {
        let succeeded = program.run(runs)
        exit(succeeded ? 0 : 1)
    }.start()
    while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
}

launch(Array(CommandLine.arguments.dropFirst()))
