import Foundation
import Motion
import MotionSimulation

/// Apple's pedometer and activity samples as iOS code writes them (`CMPedometer`,
/// `CMMotionActivityManager`, `CMPedometerData`'s `NSNumber`s, `CMMotionActivity`'s flags), with
/// the `CM` prefixes dropped; only the construction names the simulated board and its clock.
@Sendable func pedometerActivity(runs: Int) -> Bool {
    let clock = VirtualClock()
    // Taken before the board starts: the pedometer maps its virtual clock to dates once, when it
    // is made, and wall time runs on while virtual time waits for `advance`, so a date taken after
    // a slow start (a sanitizer's build) would fall after the walk's first steps.
    let start = Date()
    let source = MotionSource.simulated(Simulation(scenario: "walk-pauses"))
    let pedometer: Pedometer
    let activityManager: MotionActivityManager
    do {
        pedometer = try Pedometer(source: source, clock: clock)
        activityManager = try MotionActivityManager(source: source, clock: clock)
    } catch {
        print("error: the simulated board did not start: \(error.localizedDescription)")
        return false
    }

    print("pedometer: available steps \(Pedometer.isStepCountingAvailable()), distance \(Pedometer.isDistanceAvailable()), "
        + "floors \(Pedometer.isFloorCountingAvailable()), pace \(Pedometer.isPaceAvailable()), cadence \(Pedometer.isCadenceAvailable()), "
        + "events \(Pedometer.isPedometerEventTrackingAvailable())")

    let latest = Shared<PedometerData?>(nil)
    let cadences = Shared<[Double]>([])
    if Pedometer.isStepCountingAvailable() {
        pedometer.startUpdates(from: start) { data, error in
            guard let data = data, error == nil else { return }
            latest.withLock { $0 = data }
            if let cadence = data.currentCadence { cadences.withLock { $0.append(cadence.doubleValue) } }
        }
    }
    let events = Shared<[String]>([])
    pedometer.startEventUpdates { event, error in
        guard let event = event else { return }
        events.withLock { $0.append(event.type == .pause ? "pause" : "resume") }
    }
    let seen = Shared<Set<String>>([])
    let others = Shared(false)
    if MotionActivityManager.isActivityAvailable() {
        activityManager.startActivityUpdates(to: .main) { activity in
            guard let activity = activity else { return }
            if activity.walking { seen.withLock { _ = $0.insert("walking") } }
            if activity.stationary { seen.withLock { _ = $0.insert("stationary") } }
            if activity.automotive || activity.cycling { others.withLock { $0 = true } }
        }
    }

    Watchdog.shared.arm("the walk")
    for _ in 0..<110 { clock.advance(by: 1) }
    Watchdog.shared.disarm()

    // A query's handler runs on the pedometer's queue after the updates already handed to it.
    let answered = DispatchSemaphore(value: 0)
    let queried = Shared<PedometerData?>(nil)
    pedometer.queryPedometerData(from: start, to: Date.distantFuture) { data, error in
        queried.withLock { $0 = data }
        answered.signal()
    }
    answered.wait()
    guard let live = latest.current, let query = queried.current else {
        print("pedometer: no data")
        return false
    }
    let steps = live.numberOfSteps.intValue
    let distance = live.distance?.doubleValue ?? 0
    print("pedometer: live \(steps) steps, query \(query.numberOfSteps.intValue), same \(steps == query.numberOfSteps.intValue); "
        + "\(formatted(distance / Double(steps), 3)) m a step; floors \(live.floorsAscended == nil ? "nil" : "counted")")
    let walking = cadences.current.filter { $0 > 1 }
    print("pedometer: cadence while walking \(formatted(walking.reduce(0, +) / Double(max(1, walking.count)), 1)) steps/s, "
        + "pace \(live.averageActivePace.map { formatted($0.doubleValue, 2) } ?? "none") s/m")
    print("pedometer: events \(events.current.joined(separator: " "))")

    pedometer.stopUpdates()
    pedometer.stopEventUpdates()
    let after = latest.current
    for _ in 0..<5 { clock.advance(by: 1) }

    let listed = Shared<[MotionActivity]>([])
    let done = DispatchSemaphore(value: 0)
    activityManager.queryActivityStarting(from: start, to: Date.distantFuture, to: .main) { activities, error in
        listed.withLock { $0 = activities ?? [] }
        done.signal()
    }
    done.wait()
    activityManager.stopActivityUpdates()
    print("pedometer: after stopUpdates no handler ran: \(latest.current == after)")
    print("activity: seen \(seen.current.sorted().joined(separator: " ")); automotive or cycling \(others.current); "
        + "query \(listed.current.filter(\.walking).count > 0 ? "has" : "lacks") the walks, oldest first \(zip(listed.current, listed.current.dropFirst()).allSatisfy { $0.startDate <= $1.startDate })")
    return true
}
