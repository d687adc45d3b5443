import Fusion
import Locking

/// The floors a pedometer counts: the barometer's readings, a second at a time
/// (``BarometerWindow``, as the altimeter's updates), as a relative altitude into a
/// ``FloorCounter`` (3 m storeys with hysteresis), each floor counted kept with its time for
/// queries over the past. Runs from its creation until released, on the barometer's sampler.
final class FloorTracker: Sendable {
    /// Floors kept for queries: far more than a week of stairs.
    static let capacity = 10_000

    private let hub: BarometerHub
    private struct State {
        var window = BarometerWindow(interval: 1)
        var reference: Double?
        var counter = FloorCounter()
        /// Each floor counted: when (seconds since boot) and whether up.
        var floors: [(time: Double, up: Bool)] = []
    }
    private let state = Locked(State())
    private let consumerID: Int

    init(hub: BarometerHub) {
        self.hub = hub
        let state = self.state
        consumerID = hub.addConsumer { event in
            guard case .sample(let sample) = event else { return }
            state.withLock { state in
                guard let summary = state.window.add(sample) else { return }
                let reference = state.reference ?? summary.pressure
                state.reference = reference
                let (up, down) = (state.counter.ascended, state.counter.descended)
                state.counter.update(relativeAltitude: BarometricFormula.altitude(pressure: summary.pressure) - BarometricFormula.altitude(pressure: reference))
                for _ in up..<state.counter.ascended { state.floors.append((summary.timestamp, true)) }
                for _ in down..<state.counter.descended { state.floors.append((summary.timestamp, false)) }
                if state.floors.count > Self.capacity { state.floors.removeFirst(state.floors.count - Self.capacity) }
            }
        }
    }

    deinit {
        hub.removeConsumer(consumerID)
    }

    /// Floors counted up and down in `[from, to)` (seconds since boot).
    func floors(from: Double, to: Double) -> (ascended: Int, descended: Int) {
        state.withLock { state in
            state.floors.reduce(into: (0, 0)) { count, floor in
                guard floor.time >= from, floor.time < to else { return }
                if floor.up { count.0 += 1 } else { count.1 += 1 }
            }
        }
    }
}
