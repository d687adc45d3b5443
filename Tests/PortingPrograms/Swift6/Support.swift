import Dispatch
import Foundation
import Motion
import MotionSimulation

// What the ported programs share: a lock for the state their handlers touch (as an application
// keeps it), the simulated board, and a watchdog.
// Every file of this folder builds twice, in Swift 6 and in Swift 5 language mode
// (Tests/PortingPrograms/Swift5/Programs is a link to it).

/// A value behind a lock (`NSLock`: the thread sanitizer sees it).
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    @discardableResult
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }

    var current: Value { withLock { $0 } }
}

/// A manager on the simulated board (no stored calibrations), in virtual time unless `clock` is nil.
func simulatedMotion(_ scenario: String = "rest", clock: VirtualClock?) -> MotionManager? {
    do {
        let source = MotionSource.simulated(Simulation(scenario: scenario))
        guard let clock else { return try MotionManager(source: source, calibrationStore: nil) }
        return try MotionManager(source: source, clock: clock, calibrationStore: nil)
    } catch {
        print("error: the simulated board did not start: \(error.localizedDescription)")
        return nil
    }
}

/// Ends the process with a message naming what did not return in time: a hang is a failure the
/// test sees (exit status 3), never a test that waits for ever. No timing is asserted otherwise.
final class Watchdog: @unchecked Sendable {
    static let shared = Watchdog()
    private let state = Shared<(label: String, deadline: Date)?>(nil)

    private init() {
        let thread = Thread { [state] in
            while true {
                Thread.sleep(forTimeInterval: 0.25)
                if let armed = state.current, Date() > armed.deadline {
                    print("HUNG: \(armed.label) did not return within its watchdog time")
                    exit(3)
                }
            }
        }
        thread.start()
    }

    func arm(_ label: String, seconds: Double = 60) {
        state.withLock { $0 = (label, Date().addingTimeInterval(seconds)) }
    }

    func disarm() {
        state.withLock { $0 = nil }
    }
}

func formatted(_ value: Double, _ decimals: Int = 2) -> String {
    let text = String(format: "%.\(decimals)f", value)
    return text.hasPrefix("-") && Double(text) == 0 ? String(text.dropFirst()) : text
}

/// A lifecycle program's runs: `body` runs once per run under the watchdog and answers whether
/// that run went as it should and how many handlers started after its stop returned (nil: no
/// manager could be made, which ends the program). Prints the tally as PortingTests reads it.
func lifecycleRuns(_ name: String, runs: Int, returnedAs verb: String = "returned", _ body: (Int) -> (ok: Bool, lateStarts: Int)?) -> Bool {
    var lateStarts = 0, returned = 0
    for run in 1...max(1, runs) {
        Watchdog.shared.arm("\(name) run \(run)")
        guard let result = body(run) else { return false }
        lateStarts += result.lateStarts
        if result.ok { returned += 1 }
        Watchdog.shared.disarm()
    }
    print("\(name): \(returned) of \(runs) runs \(verb); handlers started after the stop: \(lateStarts)")
    return returned == runs && lateStarts == 0
}
