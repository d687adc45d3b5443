// What a user of the `Motion` product needs by name beyond this module's own types: the clocks a
// manager runs on (a `VirtualClock` runs the whole stack in virtual time), and the simulated
// board's scenarios and recordings (replay a `motionctl record` file with
// `Simulation(replay: try Recording(contentsOf: path))`). Those modules are not products of their
// own; importing `Motion` is enough. Errors and raw readings that `MotionError` and `SensorData`
// carry come from the bus, IIO and driver modules: exported so a client can name them.
// swift-log's `Logger` is what `MotionManager.logger` takes (the library logs nowhere until the
// application hands it one).
// (`PublicSurfaceTests` checks that every type a public signature names is one of these or
// Motion's own.)
@_exported import protocol Timing.MotionClock
@_exported import struct Timing.SystemClock
@_exported import class Timing.VirtualClock
@_exported import struct MotionSimulator.FaultPlan
@_exported import struct MotionSimulator.FaultPlanError
@_exported import struct MotionSimulator.Recording
@_exported import struct MotionSimulator.ReplaySource
@_exported import struct MotionSimulator.Scenario
@_exported import struct MotionSimulator.SimulatedBoard
@_exported import struct MotionSimulator.World
@_exported import struct I2C.I2CError
@_exported import struct IIO.IIOError
@_exported import struct Sensors.RawIMUReading
@_exported import struct Sensors.RawMagneticReading
@_exported import struct Fusion.Attitude
@_exported import enum Fusion.AttitudeReferenceFrame
@_exported import struct Fusion.Quaternion
@_exported import struct Fusion.Matrix3
@_exported import enum Fusion.MagneticFieldCalibrationAccuracy
@_exported import enum Fusion.DeviceOrientation
// Sensor fusion you can bring yourself (`MotionManager(source:attitudeEstimator:)`): the protocol
// the sampler drives, what it is given, and the estimators this library ships.
@_exported import protocol Fusion.AttitudeEstimator
@_exported import struct Fusion.AttitudeEstimatorInput
@_exported import struct Fusion.AttitudeEstimatorConfiguration
@_exported import typealias Fusion.AttitudeEstimatorFactory
@_exported import struct Fusion.AttitudeFilter
@_exported import struct Fusion.MadgwickFilter
@_exported import struct Fusion.ChipAttitudeEstimator
@_exported import enum Fusion.MagneticAccuracy
@_exported import struct Logging.Logger
