import Motion
import MotionSimulator
import Timing

extension Altimeter {
    /// An altimeter on `source` whose sampler runs on `clock`: the barometer in virtual time
    /// (`clock.advance(by:)` moves it), the same numbers every run.
    /// - Throws: ``MotionError`` as ``Altimeter/init(source:)`` does.
    public convenience init(source: MotionSource, clock: VirtualClock) throws(MotionError) {
        try self.init(source: source, clock: clock as any MotionClock)
    }

    /// The simulated hardware behind this altimeter (its world: the ground truth), nil on a real board.
    public var simulatedHardware: SimulatedHardware? { resolvedSimulation }
}
