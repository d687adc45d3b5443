/// The step counter of the LSM6DSO/DSOX/DSO32's embedded functions, modelled on the steps the
/// simulated person takes (``PhysicalSource/stepsTaken(before:)``), not on the chip's algorithm,
/// which ST does not publish. What the datasheet and application note say is modelled:
///
/// - it runs at 26 Hz (AN5192, pedometer section), whatever the accelerometer's output data rate
///   (26 Hz or more: below that it stops): a step is counted at the first 26 Hz tick after its
///   impact, so up to 38.5 ms late;
/// - its debounce (PEDO_DEB_STEPS_CONF, 184h in embedded advanced page 1, DEB_STEP default 10,
///   DS12140 §12): after a pause the counter does not move until `debounceSteps` steps have come,
///   then adds them all at once; fewer before the next pause count nothing;
/// - STEP_COUNTER_L/H (62h/63h, DS12140 §11) hold the count modulo 2¹⁶.
///
/// Not in the datasheet, so chosen here: a pause is `pause` seconds without a step (2 s), after
/// which the debounce applies again. The model counts every true step of a walk: the on-chip
/// counter's own misses and false steps are not modelled (the comparison in docs/steps.md measures
/// latency and debounce, not the chip's detection).
struct LSM6Pedometer: Sendable {
    /// The pedometer's processing rate, Hz.
    static let rate = 26.0
    /// DEB_STEP's power-on value.
    static let debounceSteps = 10
    /// Seconds without a step after which the debounce applies again (our choice).
    static let pause = 2.0

    /// When PEDO_EN was set (the chip's clock), nil while off.
    private(set) var enabledAt: Double?
    /// The 26 Hz ticks processed: up to and including this index since `enabledAt`.
    private var lastTick = 0
    /// The true steps before the last processed tick.
    private var stepsSeen = 0
    /// The steps held by the debounce, and whether it holds (true after a pause).
    private var held = 0
    private var debouncing = true
    private var lastStepTime = -Double.infinity
    /// The count, modulo 2¹⁶ (STEP_COUNTER_L/H).
    private(set) var count: UInt16 = 0

    /// PEDO_EN written at `time`: on starts counting from the steps taken so far.
    mutating func setEnabled(_ on: Bool, at time: Double, source: any PhysicalSource) {
        guard on != (enabledAt != nil) else { return }
        if on {
            enabledAt = time
            lastTick = 0
            stepsSeen = source.stepsTaken(before: time)
            held = 0
            debouncing = true
            lastStepTime = -Double.infinity
        } else {
            enabledAt = nil
        }
    }

    /// Processes every 26 Hz tick up to `time` while the accelerometer runs at 26 Hz or more.
    mutating func advance(to time: Double, accelerometerRunning: Bool, source: any PhysicalSource) {
        guard let start = enabledAt else { return }
        let due = Int(((time - start) * Self.rate).rounded(.down))
        guard due > lastTick else { return }
        guard accelerometerRunning else {
            // Stopped: the ticks pass without counting; steps taken meanwhile are never seen.
            lastTick = due
            stepsSeen = source.stepsTaken(before: time)
            return
        }
        for tick in (lastTick + 1)...due {
            let tickTime = start + Double(tick) / Self.rate
            let taken = source.stepsTaken(before: tickTime)
            let new = taken - stepsSeen
            stepsSeen = taken
            if tickTime - lastStepTime > Self.pause {
                debouncing = true
                held = 0
            }
            guard new > 0 else { continue }
            lastStepTime = tickTime
            if debouncing {
                held += new
                guard held >= Self.debounceSteps else { continue }
                add(held)
                held = 0
                debouncing = false
            } else {
                add(new)
            }
        }
        lastTick = due
    }

    private mutating func add(_ steps: Int) {
        count = UInt16(truncatingIfNeeded: Int(count) + steps)
    }
}
