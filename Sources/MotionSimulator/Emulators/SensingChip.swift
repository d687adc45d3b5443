/// The state every sensing chip model is built on: what the chip senses and how the emulated part
/// deviates from an ideal one (both fixed when the model is made), the chip's own sampling clock,
/// and its register file with the register pointer. A chip model adds its register tables and its
/// datasheet's quirks.
struct ChipCore: Sendable {
    let source: any PhysicalSource
    let options: EmulatorOptions
    var clock: SampleTicker
    var registers: [UInt8] = []
    var pointer: UInt8 = 0

    init(source: any PhysicalSource, options: EmulatorOptions) {
        self.source = source
        self.options = options
        clock = SampleTicker(driftPPM: options.clockDriftPPM)
    }

    /// The power-on state of the register file: `count` registers, all 0 but `presets`; the
    /// pointer at 0; the sampling clock stopped.
    mutating func powerOn(registerCount count: Int, presets: KeyValuePairs<UInt8, UInt8> = [:]) {
        registers = [UInt8](repeating: 0, count: count)
        for (address, value) in presets { registers[Int(address)] = value }
        pointer = 0
        clock.set(rate: nil, at: 0)
    }
}

/// A register-level chip model whose common state lives in a ``ChipCore``: it reads its source,
/// options, clock, registers and pointer from the core.
protocol SensingChip: RegisterChip {
    var core: ChipCore { get set }
}

/// A chip model without variants to choose from: made from its core alone.
protocol SingleModelChip: SensingChip {
    init(core: ChipCore)
}

extension SingleModelChip {
    /// A chip sensing `source`, deviating from an ideal part by `options`, in its power-on state.
    init(source: any PhysicalSource, options: EmulatorOptions) {
        self.init(core: ChipCore(source: source, options: options))
        powerOnReset()
    }
}

extension SensingChip {
    var source: any PhysicalSource { core.source }
    var options: EmulatorOptions { core.options }

    var clock: SampleTicker {
        get { core.clock }
        set { core.clock = newValue }
        _modify { yield &core.clock }
    }

    var registers: [UInt8] {
        get { core.registers }
        set { core.registers = newValue }
        _modify { yield &core.registers }
    }

    var pointer: UInt8 {
        get { core.pointer }
        set { core.pointer = newValue }
    }

    /// Brings the sampling clock up to `time`, handing the time of each of the last `keep`
    /// samples that fell due to `take`, oldest first (what a FIFO can still hold): how many fell
    /// due and how many were handed out. Allocates nothing.
    mutating func sampleClock(to time: Double, keepingLast keep: Int, _ take: (inout Self, Double) -> Void) -> (due: Int, kept: Int) {
        var ticker = clock
        var kept = 0
        let due = ticker.advance(to: time, keepingLast: keep) { tick in
            take(&self, tick)
            kept += 1
        }
        clock = ticker
        return (due, kept)
    }

    /// ``sampleClock(to:keepingLast:_:)`` for a FIFO of `capacity` bytes taking frames of
    /// `frameSize` bytes (0: it takes none): as many of the last samples as the FIFO holds and
    /// one more (to overflow it); `lost` when more fell due than were handed out.
    mutating func sampleFrames(to time: Double, frameSize: Int, capacity: Int, _ take: (inout Self, Double) -> Void) -> (due: Int, lost: Bool) {
        let keep = frameSize > 0 ? capacity / frameSize + 1 : 0
        let (due, kept) = sampleClock(to: time, keepingLast: keep, take)
        return (due, due > kept && keep > 0)
    }

    /// The accelerometer output for `state`: specific force in g plus the self-test deflection
    /// `selfTest` (g), the dead axes at 0, quantized to `gPerLSB`.
    func accelCounts(of state: PhysicalState, selfTest: SIMD3<Double> = .zero, gPerLSB: Double) -> SIMD3<Int16> {
        let g = state.specificForce / Encoding.gravity + selfTest
        return Encoding.counts(Encoding.masking(g, deadAxes: options.deadAxes, SensorAxis.accelerometer), perLSB: gPerLSB)
    }

    /// The gyroscope output for `state`: angular rate in °/s plus the self-test deflection
    /// `selfTest` (°/s), the dead axes at 0, quantized to `dpsPerLSB`.
    func gyroCounts(of state: PhysicalState, selfTest: SIMD3<Double> = .zero, dpsPerLSB: Double) -> SIMD3<Int16> {
        let dps = state.angularRate * Encoding.degreesPerRadian + selfTest
        return Encoding.counts(Encoding.masking(dps, deadAxes: options.deadAxes, SensorAxis.gyroscope), perLSB: dpsPerLSB)
    }
}

extension RegisterChip {
    /// Stores the 16-bit words of `block` (two bytes each) from `address` on, but for the words
    /// whose index `frozen` names: they keep their last value (a sensor axis in standby).
    mutating func storeWords<Block: RandomAccessCollection<UInt8>>(_ block: Block, at address: UInt8, except frozen: (Int) -> Bool)
    where Block.Index == Int {
        for index in 0..<(block.count / 2) where !frozen(index) {
            registers[Int(address) + index * 2] = block[index * 2]
            registers[Int(address) + index * 2 + 1] = block[index * 2 + 1]
        }
    }
}

/// What the InvenSense motion chips (the MPU-6050 family and the ICM-20948) share: they sample
/// while awake at their sample rate; each sample goes to the FIFO as a frame of the selected
/// sensor registers while the FIFO collects, sets a data-ready flag, and a FIFO overflow flag
/// when samples were lost; the output registers follow the input but for the axes (and the
/// temperature sensor) in standby, which keep their last value.
protocol InvenSenseFamilyChip: SensingChip {
    /// The first output register: accelerometer, gyroscope and temperature words follow it.
    static var accelXoutH: UInt8 { get }
    /// The data-ready and the FIFO-overflow interrupt flags: register and bit.
    static var dataReadyFlag: (register: UInt8, bit: UInt8) { get }
    static var fifoOverflowFlag: (register: UInt8, bit: UInt8) { get }
    /// The chip is awake and sampling.
    var isRunning: Bool { get }
    /// The FIFO's sensor selection, whether the FIFO collects, and its size in bytes.
    var fifoSelection: UInt8 { get }
    var fifoCollects: Bool { get }
    var fifoCapacity: Int { get }
    /// The FIFO's bytes, oldest first.
    var fifo: [UInt8] { get set }
    /// On overflow the FIFO keeps what it holds and the new frame is lost; otherwise the oldest
    /// bytes make room for it.
    var fifoKeepsOldDataOnOverflow: Bool { get }
    /// The bytes one FIFO frame of `selection` takes.
    static func frameSize(_ selection: UInt8) -> Int
    /// The output registers' 14 bytes, in register order, as they read at `time`.
    func sensorBlock(at time: Double) -> InlineBytes
    /// Appends the frame of `selection` cut from `block` to the FIFO.
    mutating func appendFrame(_ block: InlineBytes, selection: UInt8)
    /// Whether output word `index` (register order) keeps its value: its sensor axis in standby.
    func isFrozen(word index: Int) -> Bool
}

extension InvenSenseFamilyChip {
    /// Appends the 2-byte words of `block` at the offsets whose bit `selection` has, in the order
    /// of `words`, to `frame`.
    static func appendWords(of block: InlineBytes, _ words: [(bit: UInt8, offset: Int)], selection: UInt8, to frame: inout InlineBytes) {
        for (bit, offset) in words where selection & bit != 0 {
            frame.append(contentsOf: block[offset..<(offset + 2)])
        }
    }

    /// Puts a FIFO frame in the FIFO. When it does not fit the overflow flag is set and either the
    /// frame is lost or the oldest bytes go (``fifoKeepsOldDataOnOverflow``).
    mutating func pushFIFOFrame(_ frame: InlineBytes) {
        guard !frame.isEmpty else { return }
        let overflow = fifo.count + frame.count - fifoCapacity
        if overflow > 0 {
            registers[Int(Self.fifoOverflowFlag.register)] |= Self.fifoOverflowFlag.bit
            if fifoKeepsOldDataOnOverflow { return }
            fifo.removeFirst(min(overflow, fifo.count))
        }
        fifo.append(contentsOf: frame.dropFirst(max(0, frame.count - fifoCapacity)))
    }

    mutating func advance(to time: Double) {
        guard isRunning else { return }
        let selection = fifoSelection
        let (due, lost) = sampleFrames(to: time, frameSize: fifoCollects ? Self.frameSize(selection) : 0, capacity: fifoCapacity) { chip, tick in
            chip.appendFrame(chip.sensorBlock(at: tick), selection: selection)
        }
        if lost { registers[Int(Self.fifoOverflowFlag.register)] |= Self.fifoOverflowFlag.bit }
        if due > 0 { registers[Int(Self.dataReadyFlag.register)] |= Self.dataReadyFlag.bit }
        let block = sensorBlock(at: time)
        var frozen: UInt32 = 0
        for index in 0..<(block.count / 2) where isFrozen(word: index) { frozen |= 1 << index }
        storeWords(block, at: Self.accelXoutH) { frozen & (1 << $0) != 0 }
    }
}
