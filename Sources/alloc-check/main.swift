// Counts heap allocations per sample in the sampler's steady state, on the simulated board in
// virtual time: for each IMU (with its usual magnetometer) and each separate magnetometer, device
// motion at 100 Hz through the timer, then through the chip's FIFO, each taken as `deviceMotion`
// polls it and then handed to a handler on a DispatchQueue (`+queue`). Allocations are counted by
// the interposers of CMallocCounter (this process only), up to the moment the handler has taken
// every sample of the counted window. Prints one line per run:
//   <imu> <magnetometer> <timer|fifo>[+queue] <allocations> <samples> <attitudes>
// where <attitudes> is the number of `Attitude` objects the handler got (0 without one; two a
// call where the chip has its own fusion: `chipAttitude`).
// after warming up (chip setup, first reads, buffers reaching their size: the simulated bus's
// log of 10 000 transactions fills in about 70 s of virtual time). `AllocationTests`
// runs it and expects 0 allocations without a handler, and with one at most Dispatch's
// continuation and the call's `Attitude` object per sample.
//   alloc-check [--warmup SECONDS] [--seconds SECONDS] [--imu NAME] [--magnetometer NAME] [--mode timer|fifo] [--trace]
// `alloc-check --list` prints the runs it makes, `<imu> <magnetometer>` a line, and measures
// nothing: the chips come from the emulator registry, so the test takes its list from here.
// `alloc-check --barometer` measures the altimeter instead: every barometer of the driver registry
// (`ChipRegistry.barometers`) on the simulated board, read at its own rate, relative-altitude
// updates (one a second) to a handler on a DispatchQueue:
//   <barometer> barometer updates+queue <allocations> <readings> <updates>
// (a registry barometer the simulator does not emulate: `<barometer> barometer not-emulated`).
// `alloc-check --barometer --list` prints the registry's barometers, one a line, and measures nothing.
// `--steps`: the board walks (`walk-hand`) and a `Pedometer` and a `MotionActivityManager` count
// on the same sampler (the step stage on every sample, the step history recorded), next to device
// motion; the run's name ends in `+steps`. `--chip-steps` (with `--steps`): the pedometer counts
// with the IMU's own step counter (read every 0.1 s), on an IMU that has one.
import CMallocCounter
import Dispatch
import Glibc
import Motion
import MotionSimulation
import MotionSimulator
import Sensors
import Synchronization
import Timing

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    arguments.firstIndex(of: name).flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[$0 + 1] : nil }
}
let warmup = option("--warmup").flatMap(Double.init) ?? 80
let seconds = option("--seconds").flatMap(Double.init) ?? 2
/// `--trace`: the call stack of every allocation counted, on standard error.
let trace = arguments.contains("--trace")
/// `--steps`: a pedometer and an activity manager on the sampler too, the board walking.
let steps = arguments.contains("--steps")
/// `--chip-steps`: that pedometer counts with the IMU's own step counter.
let chipSteps = arguments.contains("--chip-steps")
// Turning tracing on the first time loads the unwinder, which allocates: once here, before any count.
if trace {
    CMallocCounter_trace(1)
    CMallocCounter_trace(0)
}

guard CMallocCounter_isActive() != 0 else {
    print("unavailable: the allocation counter is left out of sanitizer builds")
    exit(0)
}

struct Run {
    var imu: SimulatedBoard.IMU
    var magnetometer: SimulatedBoard.MagnetometerChoice
    var name: String {
        let chip: String = switch magnetometer {
        case .usual: imu.usualMagnetometer?.rawValue ?? "built-in"
        case .none: "none"
        case .chip(let chip): chip.rawValue
        }
        return "\(imu.rawValue) \(chip)"
    }
}

// The BNO08x is left out: it speaks SHTP packets, read with plain I2C reads (`I2CBus.read`), which
// have no allocation-free form the way register reads have (`readRegisters(_:_:into:)`), and its
// packets are parsed into arrays; it allocates per sample until the bus protocol gains one.
var runs = SimulatedBoard.IMU.allCases.filter { $0 != .bno08x }.map { Run(imu: $0, magnetometer: .usual) }
runs += SimulatedBoard.Magnetometer.allCases.map { Run(imu: .lsm6dsox, magnetometer: .chip($0)) }
if let imu = option("--imu").flatMap(SimulatedBoard.IMU.init(rawValue:)) { runs = runs.filter { $0.imu == imu } }
if let magnetometer = option("--magnetometer").flatMap(SimulatedBoard.MagnetometerChoice.init(name:)) {
    runs = runs.filter { $0.magnetometer == magnetometer }
}
if arguments.contains("--list"), !arguments.contains("--barometer") {
    for run in runs { print(run.name) }
    exit(0)
}

/// Device motion at 100 Hz for `warmup` seconds of virtual time, then `seconds` more counted.
/// With `handlerQueue`, each sample goes to a handler on a `DispatchQueue` (Dispatch allocates a
/// continuation per hop, and samples arriving while one is pending share it; each call gets its
/// own `Attitude` object, made as the sample is sent to the delivery); without, the samples are kept for
/// `deviceMotion` as a pull consumer's (a read of it makes its attitude object; none is made here).
func measure(_ run: Run, fifo: Bool, handlerQueue: Bool) throws -> (allocations: Int, samples: Int, attitudes: Int) {
    let clock = VirtualClock()
    let simulation = Simulation(scenario: steps ? "walk-hand" : "tumble", imu: run.imu, magnetometer: run.magnetometer)
    let manager = try MotionManager(source: .simulated(simulation), clock: clock, calibrationStore: nil)
    let pedometer = steps ? try Pedometer(sharing: manager, stepCounter: chipSteps ? .chip : .library) : nil
    let counters = pedometer.map { ($0, MotionActivityManager(sharing: manager)) }
    manager.usesChipFIFO = fifo
    manager.deviceMotionUpdateInterval = 0.01
    let queue = DispatchQueue(label: "alloc-check.handler")
    let delivered = Atomic(0)
    let attitudes = Atomic(0)
    // An accelerometer alone (the ADXL345) has no device motion: its accelerometer updates are
    // counted instead, which make no attitude objects.
    let deviceMotion = manager.isDeviceMotionAvailable
    if handlerQueue, deviceMotion {
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical, to: queue) { motion, _ in
            guard let motion else { return }
            delivered.add(1, ordering: .relaxed)
            attitudes.add(motion.chipAttitude == nil ? 1 : 2, ordering: .relaxed)
        }
    } else if handlerQueue {
        manager.accelerometerUpdateInterval = 0.01
        manager.startAccelerometerUpdates(to: queue) { data, _ in
            if data != nil { delivered.add(1, ordering: .relaxed) }
        }
    } else if deviceMotion {
        manager.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
    } else {
        manager.accelerometerUpdateInterval = 0.01
        manager.startAccelerometerUpdates()
    }
    /// The handler's count once every sample handed to its queue has been handled.
    func settled() -> Int {
        guard handlerQueue else { return manager.counters.sampled }
        var count = -1
        while count != delivered.load(ordering: .relaxed) {
            count = delivered.load(ordering: .relaxed)
            usleep(5_000)
            queue.sync {}
        }
        return count
    }
    let step = 0.01
    for _ in 0..<Int(warmup / step) { clock.advance(by: step) }
    let samplesBefore = settled()
    let attitudesBefore = attitudes.load(ordering: .relaxed)
    let before = CMallocCounter_count()
    if trace { CMallocCounter_trace(1) }
    for _ in 0..<Int(seconds / step) { clock.advance(by: step) }
    // Counted until the handler has taken every sample of the window: its queue allocates too.
    let samples = settled() - samplesBefore
    CMallocCounter_trace(0)
    let allocations = CMallocCounter_count() - before
    manager.stopDeviceMotionUpdates()
    manager.stopAccelerometerUpdates()
    withExtendedLifetime(counters) {}
    return (allocations, samples, attitudes.load(ordering: .relaxed) - attitudesBefore)
}

/// The altimeter on `barometer` for `warmup` seconds of virtual time, then `seconds` more counted:
/// allocations, barometer readings and updates handled in the counted window.
func measure(barometer: SimulatedBoard.Barometer) throws -> (allocations: Int, readings: Int, updates: Int) {
    let clock = VirtualClock()
    var simulation = Simulation(scenario: "stairs")
    simulation.barometer = barometer
    let altimeter = try Altimeter(source: .simulated(simulation), clock: clock)
    let queue = DispatchQueue(label: "alloc-check.altitude")
    let delivered = Atomic(0)
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in
        if data != nil { delivered.add(1, ordering: .relaxed) }
    }
    let step = 0.01
    for _ in 0..<Int(warmup / step) { clock.advance(by: step) }
    queue.sync {}
    let (readingsBefore, updatesBefore) = (altimeter.counters.sampled, delivered.load(ordering: .relaxed))
    let before = CMallocCounter_count()
    if trace { CMallocCounter_trace(1) }
    for _ in 0..<Int(seconds / step) { clock.advance(by: step) }
    CMallocCounter_trace(0)
    let allocations = CMallocCounter_count() - before
    queue.sync {}
    let result = (allocations, altimeter.counters.sampled - readingsBefore, delivered.load(ordering: .relaxed) - updatesBefore)
    altimeter.stopRelativeAltitudeUpdates()
    return result
}

if arguments.contains("--barometer") {
    // Every barometer the drivers know, by its CLI name, so that a chip added to the registry is
    // measured (or reported as not emulated) without a change here.
    let names = ChipRegistry.barometers.compactMap(\.cliNames.first)
    if arguments.contains("--list") {
        for name in names { print(name) }
        exit(0)
    }
    let only = option("--chip")
    for name in names where only == nil || name == only {
        guard let barometer = SimulatedBoard.Barometer(rawValue: name) else {
            print("\(name) barometer not-emulated")
            continue
        }
        do {
            let (allocations, readings, updates) = try measure(barometer: barometer)
            print("\(barometer.rawValue) barometer updates+queue \(allocations) \(readings) \(updates)")
        } catch {
            print("\(barometer.rawValue) barometer failed: \(error)")
        }
    }
    exit(0)
}

let modes = option("--mode").map { [$0 == "fifo"] } ?? [false, true]
for run in runs {
    for fifo in modes {
        for handlerQueue in [false, true] {
            let name = "\(run.name) \(fifo ? "fifo" : "timer")\(handlerQueue ? "+queue" : "")\(steps ? (chipSteps ? "+chipsteps" : "+steps") : "")"
            do {
                let (allocations, samples, attitudes) = try measure(run, fifo: fifo, handlerQueue: handlerQueue)
                print("\(name) \(allocations) \(samples) \(attitudes)")
            } catch {
                print("\(name) failed: \(error)")
            }
        }
    }
}
