// What a test, a replay or a hardware-in-the-loop rig needs beside `Motion`: the virtual clock
// (the whole stack in virtual time), the scenarios and the world behind them (the ground truth),
// recordings (`motionctl record` writes them) and the faults the simulated bus injects.
// (`PublicSurfaceTests` checks that every type a public signature names is one of these, Motion's
// or this module's own.)
@_exported import class Timing.VirtualClock
@_exported import struct MotionSimulator.FaultPlan
@_exported import struct MotionSimulator.FaultPlanError
@_exported import struct MotionSimulator.GroundTruth
@_exported import struct MotionSimulator.RecordedPressure
@_exported import struct MotionSimulator.RecordedSample
@_exported import struct MotionSimulator.Recording
@_exported import enum MotionSimulator.RecordingError
@_exported import struct MotionSimulator.Scenario
@_exported import struct MotionSimulator.SimulatedBoard
@_exported import struct MotionSimulator.SimulatedHardware
@_exported import struct MotionSimulator.World
