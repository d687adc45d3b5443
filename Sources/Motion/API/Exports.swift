// What a user of the `Motion` product needs by name beyond this module's own types: the errors
// that `MotionError` carries (from the bus and IIO modules), attitude's quaternion and frames, orientation, the calibration accuracies, and the sensor
// fusion a user may bring (`MotionManager(source:attitudeEstimator:)`: the protocol the sampler
// drives, what it is given, and the factory that picks one of the estimators this library ships). The simulator, its clock,
// scenarios, recordings and faults are the `MotionSimulation` product's.
// swift-log's `Logger` is what `MotionManager.logger` takes (the library logs nowhere until the
// application hands it one).
// (`PublicSurfaceTests` checks that every type a public signature names is one of these or
// Motion's own.)
@_exported import struct I2C.I2CError
@_exported import struct IIO.IIOError
@_exported import struct Fusion.AttitudeReferenceFrame
@_exported import struct Fusion.Quaternion
@_exported import struct Fusion.Matrix3
@_exported import enum Fusion.MagneticFieldCalibrationAccuracy
@_exported import enum Fusion.DeviceOrientation
@_exported import protocol Fusion.AttitudeEstimator
@_exported import struct Fusion.AttitudeEstimatorInput
@_exported import struct Fusion.AttitudeEstimatorConfiguration
@_exported import struct Fusion.AttitudeEstimatorFactory
@_exported import enum Fusion.MagneticAccuracy
@_exported import struct Logging.Logger
