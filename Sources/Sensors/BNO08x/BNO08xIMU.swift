import I2C
import Locking

/// Driver for the CEVA (Hillcrest) BNO080, BNO085 and BNO086 over I2C, at 0x4A (SA0 low) or 0x4B
/// (SA0 high): a sensor hub that speaks SHTP (``SHTPTransport``) and SH-2 (``SH2Report``), not
/// registers. Its constants are checked against the BNO080 datasheet 1000-3927 and CEVA's
/// published sh2 library (BNO08xFactsTests lists each with its source).
///
/// ``configure(_:)`` resets the hub (executable channel), waits for its reset notice, asks for
/// its Product ID (the identity check) and turns on, by Set Feature at the output data rate, the
/// accelerometer, the calibrated gyroscope, the calibrated magnetometer (at most 100 Hz) and the
/// rotation vector, and the step counter and stability classifier (on change, at most 10 Hz),
/// then waits for the gyroscope's Get Feature Response and refuses a period the hub grants that is
/// more than ``BNO08xHub/periodTolerance`` from the one asked for (samples are timed by the latter).
/// Each read takes every packet the hub has waiting; a calibrated gyroscope report is one sample,
/// with the latest accelerometer report and rotation vector (``IMUSample/chipOrientation``).
/// The magnetometer is the driver's companion (``companionMagnetometer``), as the BNO055's is.
/// ``enable(_:rate:)`` turns on any other report (uncalibrated gyroscope and field, game
/// rotation vector, linear acceleration, gravity); ``latest(_:)`` gives each report's newest reading.
///
/// The hub's reports are the FIFO (``readFIFO(into:)``): a sample's ``FIFOFrame/sampleIndex`` is
/// the gyroscope report's own sequence number, unwrapped, so samples lost between reads (a
/// sequence gap, a corrupted read) leave a gap in the indices that the sampler counts. Every packet
/// the transport drops is counted by reason (``droppedPackets``). A hub that resets by itself (its
/// reset notice in mid-stream) has turned every report off: the driver counts it
/// (``hubResets``), and ``isStillConfigured()`` says so, so the sampler sets it up again (which
/// turns the reports back on) and counts the samples lost as a device reset.
///
/// The chip stretches the I2C clock; a controller that does not wait for it (the Raspberry Pi's)
/// reads corrupted bytes. Such headers are caught (``SHTPDropReason/implausibleHeader``), counted
/// and dropped, and `motionctl doctor` names the fix.
package final class BNO08xIMU: IMUDriver, BusPlacedDriver {
    package static let chipName = BNO08xSettings.name
    /// 100 Hz, ±8 g, ±2000 °/s: the sensors' ranges (1000-3927 "Sensor specifications").
    package let defaultConfiguration = BNO08xSettings.defaultConfiguration
    package let chip: ChipInfo
    package let magnetometer: BNO08xMagnetometer
    package var companionMagnetometer: (any MagnetometerDriver)? { magnetometer }
    package var providesChipOrientation: Bool { true }
    let hub: BNO08xHub

    package init(bus: any I2CBus, address: I2CAddress = I2CAddress(0x4A), pause: Pause = .system, resetCompletion: ResetCompletion = .pollResetBit) {
        hub = BNO08xHub(bus: bus, address: address, pause: pause)
        chip = hub.chip
        magnetometer = BNO08xMagnetometer(hub: hub)
    }

    package var configuration: IMUConfiguration { hub.configuration }
    /// Packets the transport dropped since the driver was made, by reason.
    package var droppedPackets: [SHTPDropReason: Int] { hub.droppedPackets }
    /// Gyroscope reports (samples) that the reports' sequence numbers say never arrived.
    package var samplesLost: Int { hub.samplesLost }
    /// Resets of the hub seen in mid-stream (not the ones ``configure(_:)`` asks for).
    package var hubResets: Int { hub.hubResets }
    /// The hub's software, from its Product ID Response at the last ``configure(_:)``.
    package var productID: SH2ProductID? { hub.productID }
    /// The newest reading of `report` (nil before the first, or when it is not on).
    package func latest(_ report: SH2Report) -> SH2Reading? { hub.latest(report) }
    /// The period the hub reports `report` at, µs, as its last Get Feature Response gave it
    /// (1000-3927 §5: it may differ from the one asked for); nil before one came.
    package func reportInterval(_ report: SH2Report) -> UInt32? { hub.reportInterval(report) }
    /// The hub's step count (``SH2Report/stepCounter``): steps since the hub started, modulo 2^16.
    package var stepCount: UInt16? {
        if case .steps(let steps) = latest(.stepCounter)?.value { steps } else { nil }
    }
    /// The hub's stability class (``SH2Report/stabilityClassifier``).
    package var stability: SH2Stability? {
        if case .stability(let stability) = latest(.stabilityClassifier)?.value { stability } else { nil }
    }

    package func configure(_ configuration: IMUConfiguration) throws(SensorError) {
        try hub.configure(configuration)
        magnetometer.forget()
    }

    /// Turns `report` on at `rate` Hz (0: off) until the next ``configure(_:)``.
    package func enable(_ report: SH2Report, rate: Double) throws(SensorError) { try hub.enable(report, rate: rate) }

    /// The hub has not reset itself since ``configure(_:)`` (its reset notice turns every report
    /// off). No bus access: the notice arrives with the reports, and each read takes it.
    package func isStillConfigured() throws(SensorError) -> Bool { hub.isConfigured }

    /// The newest sample among the packets waiting; the last one again when none came since
    /// (the hub reports at its own interval, which a timer's tick may beat).
    package func readSample() throws(SensorError) -> IMUSample {
        var read = FIFORead(frames: [], overflowed: false)
        try readFIFO(into: &read)
        if let newest = read.frames.last?.sample ?? hub.lastSample { return newest }
        throw .dataTimeout(chip: chip.name, address: chip.address, polls: 1)
    }

    /// The hub's report stream runs once configured: nothing to start; the sample indices
    /// start again.
    package func enableFIFO() throws(SensorError) { hub.restartIndices() }

    /// Every packet waiting (at most ``BNO08xHub/packetsPerRead``): one frame per calibrated
    /// gyroscope report.
    package func readFIFO(into read: inout FIFORead) throws(SensorError) {
        if let field = try hub.read(into: &read) { magnetometer.keep(field) }
    }

    /// The hub runs its own start-up checks; SH-2 offers no self-test command.
    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test command (the hub tests itself at start-up)")
    }
}

/// The hub behind a ``BNO08xIMU`` and its ``BNO08xMagnetometer``: the transport, what was turned
/// on, the newest reading of each report, under one lock.
final class BNO08xHub: Sendable {
    let chip: ChipInfo

    /// How far the hub's gyroscope period may be from the one asked for: the sampler times samples
    /// by their sequence numbers at the rate asked for, and its estimator takes no clock further
    /// than 1000 ppm off (``SampleTimeEstimator``).
    static let periodTolerance = 1e-3

    /// Empty reads the driver waits through for the reset notice or the Product ID Response,
    /// ``pollInterval`` apart: the hub restarts in well under a second (1000-3927 "Startup timing").
    static let responsePolls = 50
    static let pollInterval = Duration.milliseconds(20)
    /// The most packets one read takes: a hub that keeps sending is read again at the next tick.
    static let packetsPerRead = 64

    private let pause: Pause
    private let state: Locked<State>

    struct State {
        var transport: SHTPTransport
        var configuration: IMUConfiguration
        var productID: SH2ProductID?
        var latest: [SH2Report: SH2Reading] = [:]
        var enabled: [SH2Report: UInt32] = [:]
        /// The hub's report periods, µs, by report ID, from its Get Feature Responses.
        var granted: [UInt8: UInt32] = [:]
        /// The gyroscope report's sequence number last seen, and the samples counted so far.
        var lastGyroSequence: UInt8?
        var sampleIndex = 0
        /// Gyroscope reports the sequence numbers say never arrived.
        var samplesLost = 0
        var hubResets = 0
        var isConfigured = false
        var lastSample: IMUSample?
        /// Reused between reads.
        var readings: [SH2Reading] = []
    }

    init(bus: any I2CBus, address: I2CAddress, pause: Pause) {
        self.pause = pause
        chip = ChipInfo(name: BNO08xSettings.name, family: .bno08x, address: address, identity: BNO08xSettings.identity)
        state = Locked(State(transport: SHTPTransport(bus: bus, address: address), configuration: BNO08xSettings.defaultConfiguration))
    }

    var configuration: IMUConfiguration { state.withLock { $0.configuration } }
    var droppedPackets: [SHTPDropReason: Int] { state.withLock { $0.transport.dropped } }
    var samplesLost: Int { state.withLock { $0.samplesLost } }
    var hubResets: Int { state.withLock { $0.hubResets } }
    var productID: SH2ProductID? { state.withLock { $0.productID } }
    var isConfigured: Bool { state.withLock { $0.isConfigured } }
    var lastSample: IMUSample? { state.withLock { $0.lastSample } }
    func latest(_ report: SH2Report) -> SH2Reading? { state.withLock { $0.latest[report] } }
    func reportInterval(_ report: SH2Report) -> UInt32? { state.withLock { $0.granted[report.rawValue] } }
    /// The next sample is numbered 0 (``FIFOFrame/sampleIndex``: samples since the FIFO started).
    func restartIndices() {
        state.withLock { state in
            state.lastGyroSequence = nil
            state.sampleIndex = 0
        }
    }

    // MARK: Configuration

    func configure(_ configuration: IMUConfiguration) throws(SensorError) {
        let name = chip.name
        _ = try BNO08xSettings.tables.optionsWithChipFiltering(for: configuration, chip: name)
        try state.withLock { (state: inout State) throws(SensorError) in
            state.isConfigured = false
            try mapped { () throws(I2CError) in try state.transport.send([SHTPExecutable.reset], on: SHTPChannel.executable) }
            state.transport.hubRestarted()
            try waitFor(&state, what: "its reset notice") { $0.channel == SHTPChannel.executable && $0.cargo.first == SHTPExecutable.resetComplete }
            try mapped { () throws(I2CError) in try state.transport.send(SH2Control.productIDRequestCargo, on: SHTPChannel.control) }
            var productID: SH2ProductID?
            try waitFor(&state, what: "a Product ID Response") { packet in
                guard packet.channel == SHTPChannel.control, let found = SH2ProductID(packet.cargo[...]) else { return false }
                productID = found
                return true
            }
            state.productID = productID
            state.configuration = configuration
            state.latest = [:]
            state.lastGyroSequence = nil
            state.sampleIndex = 0
            state.lastSample = nil
            state.enabled = [:]
            state.granted = [:]
            let interval = BNO08xSettings.interval(hertz: configuration.outputDataRate)
            for (report, interval) in [
                (SH2Report.accelerometer, interval), (.gyroscope, interval), (.rotationVector, interval),
                (.magneticField, max(interval, BNO08xSettings.interval(hertz: BNO08xSettings.magnetometerRate))),
                (.stepCounter, BNO08xSettings.interval(hertz: BNO08xSettings.activityRate)),
                (.stabilityClassifier, BNO08xSettings.interval(hertz: BNO08xSettings.activityRate)),
            ] {
                try setFeature(&state, report, interval: interval)
            }
            try checkGyroscopePeriod(&state, asked: interval)
            state.isConfigured = true
        }
    }

    func enable(_ report: SH2Report, rate: Double) throws(SensorError) {
        guard rate >= 0, rate <= BNO08xSettings.fastestRate else {
            throw .unsupportedSetting(chip: chip.name, setting: "\(report) rate", requested: "\(rate) Hz",
                                      supported: ["0 (off) to \(Int(BNO08xSettings.fastestRate)) Hz"])
        }
        try state.withLock { (state: inout State) throws(SensorError) in
            try setFeature(&state, report, interval: rate == 0 ? 0 : BNO08xSettings.interval(hertz: rate))
        }
    }

    private func setFeature(_ state: inout State, _ report: SH2Report, interval: UInt32) throws(SensorError) {
        try mapped { () throws(I2CError) in try state.transport.send(SH2Control.setFeature(report, interval: interval), on: SHTPChannel.control) }
        state.enabled[report] = interval == 0 ? nil : interval
    }

    /// Waits for the gyroscope's Get Feature Response (the hub answers each Set Feature with one,
    /// 1000-3927 §5), taking the packets before it as a read would, and refuses a period further
    /// than ``periodTolerance`` from the one asked for: the samples would be mistimed. A hub that
    /// sends none within ``responsePolls`` empty reads is taken to report as asked.
    private func checkGyroscopePeriod(_ state: inout State, asked: UInt32) throws(SensorError) {
        let id = SH2Report.gyroscope.rawValue
        var scratch = FIFORead(frames: [], overflowed: false)
        var field: SIMD3<Double>?
        _ = try poll(&state) { packet, state in
            _ = take(packet, &state, into: &scratch, field: &field)
            return state.granted[id] != nil
        }
        guard let granted = state.granted[id], abs(Double(granted) / Double(asked) - 1) > Self.periodTolerance else { return }
        throw .unsupportedSetting(
            chip: chip.name, setting: "output data rate", requested: "\(Int(state.configuration.outputDataRate.rounded())) Hz",
            supported: ["the hub reports its gyroscope every \(granted) µs (\(Int((1e6 / Double(granted)).rounded())) Hz), "
                        + "not every \(asked) µs (1000-3927 §5); ask for another rate"])
    }

    /// Reads packets until `isAwaited` accepts one, pausing when the hub has nothing, at most
    /// ``responsePolls`` empty reads. Other packets (the advertisement, responses to earlier
    /// requests) are passed over: no report is on while the driver waits.
    private func waitFor(_ state: inout State, what: String, _ isAwaited: (SHTPPacket) -> Bool) throws(SensorError) {
        guard try !poll(&state, until: { packet, _ in isAwaited(packet) }) else { return }
        throw .unexpectedIdentity(chip: chip.name, address: chip.address, register: SHTPChannel.control,
                                  expected: BNO08xSettings.identity, found: [])
    }

    /// Reads packets until `isAwaited` (given each packet and the state) accepts one, pausing
    /// ``pollInterval`` when the hub has nothing; false after ``responsePolls`` empty reads.
    private func poll(_ state: inout State, until isAwaited: (SHTPPacket, inout State) -> Bool) throws(SensorError) -> Bool {
        var empty = 0
        while empty < Self.responsePolls {
            guard let packet = try mapped({ () throws(I2CError) in try state.transport.receive() }) else {
                empty += 1
                pause.wait(Self.pollInterval)
                continue
            }
            if isAwaited(packet, &state) { return true }
        }
        return false
    }

    // MARK: Samples

    /// Takes every packet waiting (at most ``packetsPerRead``) into `read`, one frame per
    /// calibrated gyroscope report; returns the newest calibrated field among them.
    func read(into read: inout FIFORead) throws(SensorError) -> SIMD3<Double>? {
        read.frames.removeAll(keepingCapacity: true)
        read.overflowed = false
        read.skippedFrames = 0
        read.chipClockWrap = nil
        var field: SIMD3<Double>?
        try state.withLock { (state: inout State) throws(SensorError) in
            for _ in 0..<Self.packetsPerRead {
                guard let packet = try mapped({ () throws(I2CError) in try state.transport.receive() }) else { break }
                if take(packet, &state, into: &read, field: &field) == .hubReset { break }
            }
        }
        return field
    }

    private enum Outcome { case taken, hubReset }

    private func take(_ packet: SHTPPacket, _ state: inout State, into read: inout FIFORead, field: inout SIMD3<Double>?) -> Outcome {
        switch packet.channel {
        case _ where SHTPTransport.isRestartNotice(channel: packet.channel, cargo: packet.cargo):
            // The advertisement or the reset notice unasked: the hub restarted, every report is off
            // (the transport has started its sequence numbers again).
            if state.isConfigured {
                state.isConfigured = false
                state.hubResets += 1
            }
            return .hubReset
        case SHTPChannel.control:
            // A Get Feature Response: the period the hub reports a sensor at (1000-3927 §5;
            // the Set Feature layout, the interval at bytes 5–8).
            if packet.cargo.count >= SH2Control.setFeatureLength, packet.cargo[0] == SH2Control.getFeatureResponse {
                state.granted[packet.cargo[1]] = SH2Parse.uint32(packet.cargo, at: 5)
            }
            return .taken
        case SHTPChannel.inputReports, SHTPChannel.wakeReports:
            state.readings.removeAll(keepingCapacity: true)
            let unparsed = SH2Parse.readings(packet.cargo, into: &state.readings)
            if unparsed > 0 { state.transport.count(.unknownReport) }
            for reading in state.readings {
                state.latest[reading.report] = reading
                if reading.report == .magneticField, case .vector(let value) = reading.value { field = value }
            }
            for reading in state.readings where reading.report == .gyroscope {
                if let last = state.lastGyroSequence {
                    let step = Int(reading.sequence &- last)
                    state.samplesLost += max(0, step - 1)
                    state.sampleIndex += max(1, step)
                }
                state.lastGyroSequence = reading.sequence
                let sample = self.sample(gyroscope: reading, state)
                state.lastSample = sample
                read.frames.append(FIFOFrame(sampleIndex: state.sampleIndex, sample: sample))
            }
            return .taken
        default:
            return .taken
        }
    }

    /// The sample of one gyroscope report with the newest accelerometer report and rotation vector.
    private func sample(gyroscope: SH2Reading, _ state: State) -> IMUSample {
        guard case .vector(let rate) = gyroscope.value else { return state.lastSample ?? IMUSample.zero }
        var acceleration = SIMD3<Double>.zero
        if case .vector(let value) = state.latest[.accelerometer]?.value { acceleration = value }
        let g = BNO08xSettings.standardGravity
        // The hub reports specific force (+g on z lying face up); Core Motion's sign is the other.
        var sample = IMUSample(
            acceleration: -acceleration / g, rotationRate: rate, temperature: nil,
            isSaturated: false, raw: RawIMUReading(
                accelerometer: Self.counts(acceleration, q: SH2Report.accelerometer.qPoint),
                gyroscope: Self.counts(rate, q: SH2Report.gyroscope.qPoint),
                accelerometerLSBPerG: BNO08xSettings.accelerometerLSBPerG, gyroscopeLSBPerDPS: BNO08xSettings.gyroscopeLSBPerDPS),
            chipOrientation: nil)
        let limits = (accelerometer: BNO08xSettings.accelerometerRange, gyroscope: BNO08xSettings.gyroscopeRange * .pi / 180)
        sample.isSaturated = (0..<3).contains { abs(acceleration[$0] / g) >= limits.accelerometer || abs(rate[$0]) >= limits.gyroscope }
        if case .quaternion(let wxyz, _) = state.latest[.rotationVector]?.value { sample.chipOrientation = ChipOrientation(wxyz: wxyz) }
        return sample
    }

    /// The report's counts again from its value (exact: the value was counts / 2^q).
    private static func counts(_ value: SIMD3<Double>, q: Int) -> SIMD3<Int16> {
        let scaled = value * Double(1 << q)
        return SIMD3(Int16(clamping: Int(scaled.x.rounded())), Int16(clamping: Int(scaled.y.rounded())), Int16(clamping: Int(scaled.z.rounded())))
    }

    /// Runs a transport call, keeping its bus error.
    private func mapped<T>(_ body: () throws(I2CError) -> T) throws(SensorError) -> T {
        do { return try body() } catch { throw .bus(error) }
    }

    /// The newest calibrated field the IMU's reads took, without a bus access: a read here would
    /// take the gyroscope reports waiting too, and their samples would be lost.
    var latestField: SIMD3<Double>? {
        state.withLock { state in
            if case .vector(let value) = state.latest[.magneticField]?.value { value } else { nil }
        }
    }
}

private extension IMUSample {
    static let zero = IMUSample(acceleration: .zero, rotationRate: .zero, temperature: nil, isSaturated: false, raw: nil, chipOrientation: nil)
}

/// The BNO08x's magnetometer: the hub's calibrated magnetic field report (µT, Q4), which the
/// IMU's reads take with the other reports. ``readSample()`` returns the field of the IMU's last
/// read, or the newest one before it, never with a bus access (a read would take the IMU's
/// samples waiting too).
package final class BNO08xMagnetometer: MagnetometerDriver {
    package let chip: ChipInfo
    /// 100 Hz (the rate the IMU turns the report on at, at most), ±1300 µT (1000-3927 "Sensor
    /// specifications": the magnetometer's range).
    package let defaultConfiguration = MagnetometerConfiguration(outputDataRate: BNO08xSettings.magnetometerRate, range: BNO08xSettings.magnetometerRange)
    private let hub: BNO08xHub
    private let waiting = Locked<SIMD3<Double>?>(nil)

    init(hub: BNO08xHub) {
        self.hub = hub
        chip = ChipInfo(name: BNO08xSettings.magnetometerName, family: .bno08x, address: hub.chip.address, identity: BNO08xSettings.identity)
    }

    package var configuration: MagnetometerConfiguration { defaultConfiguration }

    /// Checks the request; the IMU's ``BNO08xIMU/configure(_:)`` turns the report on.
    package func configure(_ configuration: MagnetometerConfiguration) throws(SensorError) {
        _ = try lookup(configuration.outputDataRate, in: [SettingOption(value: BNO08xSettings.magnetometerRate, code: 0)],
                       setting: "output data rate", unit: "Hz", chip: chip.name)
        _ = try lookup(configuration.range, in: [SettingOption(value: BNO08xSettings.magnetometerRange, code: 0)],
                       setting: "range", unit: "µT", chip: chip.name)
    }

    package func readSample() throws(SensorError) -> MagneticSample {
        var field = waiting.withLock { field -> SIMD3<Double>? in defer { field = nil }; return field }
        if field == nil { field = hub.latestField }
        guard let field else { throw .dataTimeout(chip: chip.name, address: chip.address, polls: 1) }
        let perMicrotesla = Double(1 << SH2Report.magneticField.qPoint)
        let counts = SIMD3<Int16>(Int16(clamping: Int((field.x * perMicrotesla).rounded())),
                                  Int16(clamping: Int((field.y * perMicrotesla).rounded())),
                                  Int16(clamping: Int((field.z * perMicrotesla).rounded())))
        let range = BNO08xSettings.magnetometerRange
        return MagneticSample(field: field, isSaturated: (0..<3).contains { abs(field[$0]) >= range },
                              raw: RawMagneticReading(counts: counts, lsbPerMicrotesla: SIMD3(repeating: perMicrotesla)))
    }

    /// As the IMU: the hub has not reset itself since it was configured.
    package func isStillConfigured() throws(SensorError) -> Bool { hub.isConfigured }

    package func selfTest() throws(SensorError) -> SelfTestReport {
        throw .notSupported(chip: chip.name, feature: "self-test command (the hub tests itself at start-up)")
    }

    func keep(_ field: SIMD3<Double>) { waiting.withLock { $0 = field } }
    func forget() { waiting.withLock { $0 = nil } }
}
