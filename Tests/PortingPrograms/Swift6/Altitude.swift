import Foundation
import Motion
import MotionSimulation

/// `CMAltimeter` as iOS code uses it, with renames only (`CMAltimeter` → `Altimeter`): the class
/// methods for availability and authorization, relative altitude on `.main` read through
/// `NSNumber`'s `doubleValue`, absolute altitude with its accuracy and precision, then the stops.
/// The simulated board climbs the stairs in virtual time.
@Sendable func altitude(runs: Int) -> Bool {
    guard Altimeter.isRelativeAltitudeAvailable(), Altimeter.isAbsoluteAltitudeAvailable() else {
        print("altitude: no barometer")
        return false
    }
    let clock = VirtualClock()
    let altimeter: Altimeter
    do {
        altimeter = try Altimeter(source: .simulated(Simulation(scenario: "stairs")), clock: clock)
    } catch {
        print("error: the simulated board did not start: \(error.localizedDescription)")
        return false
    }
    let relative = Shared((count: 0, metres: 0.0, kilopascals: 0.0, allOnMainThread: true))
    let absolute = Shared((count: 0, accuracy: 0.0, precision: 0.0))

    altimeter.startRelativeAltitudeUpdates(to: OperationQueue.main) { data, error in
        guard let data = data else { return }
        let isMain = Thread.isMainThread
        relative.withLock {
            $0.count += 1
            $0.metres = data.relativeAltitude.doubleValue
            $0.kilopascals = data.pressure.doubleValue
            if !isMain { $0.allOnMainThread = false }
        }
    }
    altimeter.startAbsoluteAltitudeUpdates(to: .main) { data, error in
        guard let data = data else { return }
        absolute.withLock {
            $0.count += 1
            $0.accuracy = data.accuracy
            $0.precision = data.precision
        }
    }
    // The first floor's landing: 25 s into the stairs.
    clock.advance(by: 25.5)
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    altimeter.stopRelativeAltitudeUpdates()
    altimeter.stopAbsoluteAltitudeUpdates()

    let climbed = relative.current, height = absolute.current
    let authorized = Altimeter.authorizationStatus() == .authorized
    print("altitude: authorized \(authorized); \(climbed.count) relative updates in 25 s on the main thread: \(climbed.allOnMainThread)")
    print("altitude: relative altitude at the first landing \(Int(climbed.metres.rounded())) m, pressure about \(Int(climbed.kilopascals.rounded())) kPa")
    print("altitude: \(height.count) absolute updates; accuracy without a reference over 50 m: \(height.accuracy > 50); precision under 0.1 m: \(height.precision < 0.1)")
    return authorized && climbed.count == 25 && Int(climbed.metres.rounded()) == 3 && height.count == 25
}
