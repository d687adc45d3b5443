// What a user of the `Motion` product needs by name beyond this module's own types: the clocks a
// manager runs on (a `VirtualClock` runs the whole stack in virtual time), and the simulated
// board's scenarios and recordings (replay a `motionctl record` file with
// `Simulation(replay: try Recording(contentsOf: path))`). Those modules are not products of their
// own; importing `Motion` is enough.
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
