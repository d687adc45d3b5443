import Motion
import MotionSimulator
import Timing

extension MotionManager {
    /// A manager on `source` whose sampler runs on `clock`: the whole stack in virtual time, as
    /// fast as the machine goes, the same numbers every run (`clock.advance(by:)` moves it).
    /// - Throws: ``MotionError`` as ``MotionManager/init(source:calibrationStore:attitudeEstimator:)`` does.
    public convenience init(
        source: MotionSource, clock: VirtualClock, calibrationStore: CalibrationStore? = .userDefault(),
        attitudeEstimator: AttitudeEstimatorFactory? = nil
    ) throws(MotionError) {
        try self.init(source: source, clock: clock as any MotionClock, calibrationStore: calibrationStore, attitudeEstimator: attitudeEstimator)
    }

    /// The simulated hardware behind this manager (its world: the ground truth), nil on a real board.
    public var simulatedHardware: SimulatedHardware? { resolvedSimulation }
}

extension Pedometer {
    /// A pedometer on `source` whose sampler runs on `clock` (virtual time, as
    /// ``MotionManager/init(source:clock:calibrationStore:attitudeEstimator:)``).
    public convenience init(source: MotionSource, clock: VirtualClock, calibrationStore: CalibrationStore? = nil) throws(MotionError) {
        let manager = try MotionManager(source: source, clock: clock, calibrationStore: calibrationStore)
        self.init(sharing: manager, altimeter: Self.floorAltimeter { () throws(MotionError) in try Altimeter(source: source, clock: clock) })
    }
}

extension MotionActivityManager {
    /// An activity manager on `source` whose sampler runs on `clock` (virtual time).
    public convenience init(source: MotionSource, clock: VirtualClock, calibrationStore: CalibrationStore? = nil) throws(MotionError) {
        self.init(sharing: try MotionManager(source: source, clock: clock, calibrationStore: calibrationStore))
    }
}
