import Fusion
import I2C
import I2CMock
import Locking
import MotionSimulator
@testable import Sensors
import Testing

/// The BNO08x driver: SHTP framing (headers, continuations, sequence numbers), the SH-2 reports'
/// Q points and timebase, and the driver against its emulator with the faults of a real link
/// (lost packets, a hub reset in mid-stream, a stretched clock misread).
@Suite("BNO08x")
struct BNO08xTests {
    /// Simulation time a test moves by hand.
    final class Time: Sendable {
        let seconds = Locked(100.0)
        var now: @Sendable () -> Double { { [seconds] in seconds.withLock { $0 } } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    struct Rig {
        let time = Time()
        let bus: SimulatedBus
        let emulator: BNO08xEmulator
        let imu: BNO08xIMU
        let address: I2CAddress

        init(address: UInt8 = 0x4A, options: EmulatorOptions = .init()) {
            self.address = I2CAddress(address)
            bus = SimulatedBus(now: time.now)
            emulator = BNO08xEmulator(source: ConstantSource(), now: time.now, options: options)
            bus.attach(emulator, at: self.address)
            imu = BNO08xIMU(bus: bus, address: self.address, pause: .none)
        }

        /// Advances the time by `seconds` in 10 ms steps, reading the hub at each: the frames read.
        func run(_ seconds: Double) throws -> [FIFOFrame] {
            var frames: [FIFOFrame] = []
            for _ in 0..<Int((seconds / 0.01).rounded()) {
                time.advance(0.01)
                frames += try imu.readFIFO().frames
            }
            return frames
        }
    }

    // MARK: SHTP

    @Test("the header: length LSB first, bit 15 the continuation, channel, sequence number")
    func header() {
        let header = SHTPHeader([0x15, 0x80, 0x03, 0x07])
        #expect(header == SHTPHeader(length: 0x15, isContinuation: true, channel: 3, sequence: 7))
        #expect(header.cargoLength == 0x11)
        #expect(SHTPHeader(length: 0x0114, channel: 2, sequence: 0xFF).bytes == [0x14, 0x01, 0x02, 0xFF])
        // A controller that misreads a stretched clock: all ones, no hub's header.
        #expect(!SHTPTransport.isPlausible(SHTPHeader([0xFF, 0xFF, 0xFF, 0xFF])))
        #expect(!SHTPTransport.isPlausible(SHTPHeader([0x03, 0x00, 0x02, 0x00])))
        #expect(SHTPTransport.isPlausible(SHTPHeader([0x15, 0x00, 0x05, 0x00])))
        #expect(!SHTPTransport.isPlausible(SHTPHeader([0x15, 0x00, 0x06, 0x00])))
    }

    /// A packet read as a header, then in pieces no longer than the bus carries (an SMBus-limited
    /// adapter: 8 bytes a read), each behind a continuation header with the length still to come.
    @Test("a cargo longer than one read comes in continuations and is put together")
    func fragmentation() throws {
        let cargo: [UInt8] = Array(0..<10)
        let bus = ExpectationBus([
            .read(0x4A, reply: [14, 0, 2, 5]),
            .read(0x4A, reply: [14, 0x80, 2, 5, 0, 1, 2, 3]),
            .read(0x4A, reply: [10, 0x80, 2, 5, 4, 5, 6, 7]),
            .read(0x4A, reply: [6, 0x80, 2, 5, 8, 9]),
        ], maximumReadLength: 8)
        var transport = SHTPTransport(bus: bus, address: I2CAddress(0x4A))
        let packet = try #require(try transport.receive())
        #expect(packet == SHTPPacket(channel: 2, sequence: 5, cargo: cargo))
        #expect(transport.dropped.isEmpty)
        try bus.verify()
    }

    @Test("the rest of a cargo whose start was lost is read out and dropped, counted")
    func orphanContinuation() throws {
        let bus = ExpectationBus([
            .read(0x4A, reply: [8, 0x80, 3, 1]),
            .read(0x4A, reply: [8, 0x80, 3, 1, 9, 9, 9, 9]),
        ])
        var transport = SHTPTransport(bus: bus, address: I2CAddress(0x4A))
        #expect(try transport.receive() == nil)
        #expect(transport.dropped == [.partialPacket: 1])
        try bus.verify()
    }

    @Test("a skipped sequence number counts the packets in between, per channel")
    func sequenceGap() throws {
        let bus = ExpectationBus([
            .read(0x4A, reply: [5, 0, 3, 10]), .read(0x4A, reply: [5, 0x80, 3, 10, 0xAA]),
            .read(0x4A, reply: [5, 0, 2, 40]), .read(0x4A, reply: [5, 0x80, 2, 40, 0xBB]),
            .read(0x4A, reply: [5, 0, 3, 14]), .read(0x4A, reply: [5, 0x80, 3, 14, 0xCC]),
            .read(0x4A, reply: [5, 0, 3, 15]), .read(0x4A, reply: [5, 0x80, 3, 15, 0xDD]),
        ])
        var transport = SHTPTransport(bus: bus, address: I2CAddress(0x4A))
        for _ in 0..<4 { _ = try transport.receive() }
        // 11, 12, 13 on channel 3 never came; channel 2's first packet is no gap.
        #expect(transport.dropped == [.sequenceGap: 3])
        try bus.verify()
    }

    /// A cargo in three transfers numbered 20, 21, 22 (each continuation its own number, 1000-3927
    /// Figure 1-26), then the next packet numbered 23: no gap. The same cargo with one number for
    /// all its transfers (as a hub might number a re-read): no gap either.
    @Test("continuations' own sequence numbers: the next packet follows the last transfer's")
    func continuationSequence() throws {
        let bus = ExpectationBus([
            .read(0x4A, reply: [10, 0, 3, 20]),
            .read(0x4A, reply: [10, 0x80, 3, 21, 1, 2, 3, 4]),
            .read(0x4A, reply: [6, 0x80, 3, 22, 5, 6]),
            .read(0x4A, reply: [5, 0, 3, 23]), .read(0x4A, reply: [5, 0x80, 3, 24, 7]),
            .read(0x4A, reply: [5, 0, 3, 25]), .read(0x4A, reply: [5, 0x80, 3, 25, 8]),
            .read(0x4A, reply: [5, 0, 3, 26]), .read(0x4A, reply: [5, 0x80, 3, 26, 9]),
        ], maximumReadLength: 8)
        var transport = SHTPTransport(bus: bus, address: I2CAddress(0x4A))
        #expect(try transport.receive()?.cargo == [1, 2, 3, 4, 5, 6])
        #expect(try transport.receive()?.cargo == [7])
        #expect(try transport.receive()?.cargo == [8])
        #expect(try transport.receive()?.cargo == [9])
        #expect(transport.dropped.isEmpty)
        try bus.verify()
    }

    // MARK: SH-2

    /// Accelerometer 0x01 (Q8), gyroscope 0x02 (Q9), magnetic field 0x03 (Q4), rotation vector
    /// 0x05 (Q14, accuracy Q12); a base timestamp 0xFB of 50 ticks and a rebase 0xFA of 20: each
    /// report's time is −base + rebases + its delay, 100 µs a tick (1000-3927 §1.4.5.3).
    @Test("Q points and the timebase")
    func reportsAndTimebase() {
        var cargo: [UInt8] = [0xFB, 50, 0, 0, 0]
        cargo += [0x01, 7, 0x03, 10, 0x00, 0x01, 0x00, 0xFF, 0x32, 0x09]         // (1, −1, 9.1953125) m/s², delay 10
        cargo += [0x02, 8, 0x02 | (1 << 2), 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0xFE]  // (1, 0, −1) rad/s, delay 256
        cargo += [0xFA, 20, 0, 0, 0]
        cargo += [0x03, 9, 0x01, 0, 0x20, 0x00, 0xF0, 0xFF, 0x00, 0x03]            // (2, −1, 48) µT
        cargo += [0x05, 1, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x40, 0x00, 0x10]     // identity, accuracy 1 rad
        var readings: [SH2Reading] = []
        #expect(SH2Parse.readings(cargo, into: &readings) == 0)
        #expect(readings.map(\.report) == [.accelerometer, .gyroscope, .magneticField, .rotationVector])
        #expect(readings.map(\.sequence) == [7, 8, 9, 1])
        #expect(readings.map(\.accuracy) == [3, 2, 1, 3])
        #expect(readings[0].value == .vector(SIMD3(1, -1, 2354.0 / 256)))
        #expect(readings[1].value == .vector(SIMD3(1, 0, -1)))
        #expect(readings[2].value == .vector(SIMD3(2, -1, 48)))
        #expect(readings[3].value == .quaternion(SIMD4(1, 0, 0, 0), headingAccuracy: 1))
        let times = readings.map { ($0.time / 100e-6).rounded() }
        #expect(times == [-40, 206, -30, -30])
        // An unknown report ends the parse; its bytes are counted.
        var more: [SH2Reading] = []
        #expect(SH2Parse.readings([0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x77, 1, 2], into: &more) == 3)
        #expect(more.count == 1)
    }

    @Test("Set Feature: 17 bytes, the report and its interval in µs, little-endian")
    func setFeature() {
        #expect(SH2Control.setFeature(.rotationVector, interval: 10_000)
            == [0xFD, 0x05, 0, 0, 0, 0x10, 0x27, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    }

    // MARK: Against the emulator

    @Test("identified by its Product ID at 0x4A and 0x4B")
    func identification() throws {
        for address in [UInt8(0x4A), 0x4B] {
            let rig = Rig(address: address)
            let chip = try #require(try ChipCatalog.identify(bus: rig.bus, address: I2CAddress(address), pause: .none))
            #expect(chip.name == "BNO08x" && chip.address == I2CAddress(address) && chip.identity == [0xF8])
        }
        // Nothing at 0x4B: no hub, and nothing written there.
        let rig = Rig(address: 0x4A)
        #expect(try ChipCatalog.identify(bus: rig.bus, address: I2CAddress(0x4B), pause: .none) == nil)
    }

    /// Another chip at 0x4A (an ADC's conversion register repeated): its first four bytes are no
    /// SHTP header, so nothing is written to it.
    @Test("identification writes nothing to a device that does not read like a hub")
    func identificationLeavesOtherChipsAlone() throws {
        let bus = ExpectationBus([.read(0x4A, reply: [0x12, 0x34, 0x12, 0x34])])
        #expect(try ChipCatalog.identify(bus: bus, address: I2CAddress(0x4A), pause: .none) == nil)
        try bus.verify()
    }

    /// The bus's `stretch` fault: the reads reach the hub (what it sent is gone from it) and come
    /// back as 0xFF bytes; the driver counts the implausible headers and reads on.
    @Test("the simulated bus's stretch fault: 0xFF bytes, counted by the driver")
    func stretchFaultOnTheBus() throws {
        let plan = try FaultPlan(parsing: "imu:stretch*2@0.25")
        #expect(plan.faults == [FaultPlan.Fault(sensor: .imu, kind: .stretchedReads(count: 2), at: 0.25)])
        #expect(plan.description == "imu:stretch*2@0.25")
        #expect(throws: FaultPlanError.self) { try FaultPlan(parsing: "imu:stretch+1@1") }
        let rig = Rig()
        try rig.imu.configure(rig.imu.defaultConfiguration)
        rig.bus.follow(plan, imu: rig.address, magnetometer: nil, start: 100)
        let frames = try rig.run(0.5)
        // Two header reads misread (each ends that read), then the rest of the packet whose header
        // went astray is read out and dropped: one packet, one sample lost.
        #expect(rig.imu.droppedPackets == [.implausibleHeader: 2, .partialPacket: 1], "\(rig.imu.droppedPackets)")
        #expect(rig.imu.samplesLost == 1)
        #expect(frames.count + rig.imu.samplesLost == 51)
        #expect(rig.bus.log.contains { $0.replies.contains([0xFF, 0xFF, 0xFF, 0xFF]) })
    }

    /// The same fault on the allocation-free register read the other chips take per sample.
    @Test("the stretch fault on register reads: the next N come back as 0xFF, then the chip again")
    func stretchOnRegisterReads() throws {
        let time = Time()
        let bus = SimulatedBus(now: time.now)
        bus.attach(LSM6DSOXEmulator(source: ConstantSource(), now: time.now), at: I2CAddress(0x6A))
        bus.stretchNext(2, readsFrom: I2CAddress(0x6A))
        var whoAmI = [UInt8](repeating: 0, count: 1)
        for expected in [UInt8(0xFF), 0xFF, 0x6C] {
            try whoAmI.withUnsafeMutableBytes { try bus.readRegisters(I2CAddress(0x6A), 0x0F, into: $0) }
            #expect(whoAmI == [expected])
        }
        #expect(bus.log.map(\.replies) == [[[0xFF]], [[0xFF]], [[0x6C]]])
    }

    @Test("configured: the reports on at their intervals; at rest face up, −1 g on z and the hub's attitude")
    func configureAndRead() throws {
        let rig = Rig()
        try rig.imu.configure(rig.imu.defaultConfiguration)
        #expect(rig.emulator.enabledReports.mapValues { ($0 * 1e6).rounded() }
            == [0x01: 10_000, 0x02: 10_000, 0x03: 10_000, 0x05: 10_000, 0x11: 100_000, 0x13: 100_000])
        #expect(rig.imu.productID?.partNumber == 10_004_563)
        // The first report is of the moment the report was turned on, then one every 10 ms.
        let frames = try rig.run(1)
        #expect(frames.count == 101)
        #expect(frames.map(\.sampleIndex) == Array(0..<101))
        let sample = try #require(frames.last?.sample)
        #expect(abs(sample.acceleration.z + 1) < 0.01 && abs(sample.acceleration.x) < 0.01)
        #expect(sample.chipOrientation != nil)
        let field = try rig.imu.magnetometer.readSample().field
        #expect(field != .zero)
        #expect(rig.imu.stability == .onTable)
        #expect(rig.imu.stepCount == 0)
        #expect(rig.imu.droppedPackets.isEmpty && rig.imu.samplesLost == 0)
    }

    /// The emulated hub, but its Get Feature Responses give `granted` µs as the gyroscope's
    /// period whatever was asked (1000-3927 §5: the hub may report at another period than asked).
    final class OtherPeriodHub: SimulatedDevice {
        let inner: BNO08xEmulator
        let granted: UInt32
        init(_ inner: BNO08xEmulator, granted: UInt32) {
            self.inner = inner
            self.granted = granted
        }
        var chipName: String { inner.chipName }
        func handleWrite(_ bytes: [UInt8]) { inner.handleWrite(bytes) }
        func handleRead(count: Int) -> [UInt8] {
            var reply = inner.handleRead(count: count)
            // Header, then the response: 0xFC, the report ID, flags, sensitivity, the interval at 5–8.
            if reply.count >= 4 + 17, reply[4] == 0xFC, reply[5] == 0x02 {
                for index in 0..<4 { reply[9 + index] = UInt8(truncatingIfNeeded: granted >> (8 * UInt32(index))) }
            }
            return reply
        }
        func powerOnReset() { inner.powerOnReset() }
        func peek(_ register: UInt8) -> UInt8 { inner.peek(register) }
    }

    /// The hub reports at the period of its Get Feature Response (1000-3927 §5). One within
    /// 1000 ppm of the asked 10 000 µs is taken; 4000 µs (250 Hz for the 100 Hz asked) would
    /// mistime every sample: configure refuses, naming the hub's period.
    @Test("the hub's own gyroscope period: taken within 1000 ppm, refused beyond")
    func hubPeriod() throws {
        let rig = Rig()
        try rig.imu.configure(rig.imu.defaultConfiguration)
        #expect(rig.imu.reportInterval(.gyroscope) == 10_000)
        for (granted, accepted) in [(UInt32(10_009), true), (4_000, false)] {
            let time = Time()
            let bus = SimulatedBus(now: time.now)
            bus.attach(OtherPeriodHub(BNO08xEmulator(source: ConstantSource(), now: time.now), granted: granted), at: I2CAddress(0x4A))
            let imu = BNO08xIMU(bus: bus, address: I2CAddress(0x4A), pause: .none)
            do {
                try imu.configure(imu.defaultConfiguration)
                #expect(accepted, "\(granted) µs taken")
            } catch {
                #expect(!accepted, "\(granted) µs: \(error)")
                #expect("\(error)".contains("every 4000 µs (250 Hz)"), "\(error)")
            }
            #expect(imu.reportInterval(.gyroscope) == granted)
            #expect(try imu.isStillConfigured() == accepted)
        }
    }

    /// Packets lost on the way: the SHTP sequence number counts them, the gyroscope reports'
    /// own numbers count the samples, and the sample indices skip them (the sampler counts the gap).
    @Test("a sequence-number gap: counted as packets and samples lost, the indices skip")
    func lostPackets() throws {
        let rig = Rig()
        try rig.imu.configure(rig.imu.defaultConfiguration)
        let before = try rig.run(0.5)
        rig.emulator.losePackets(3)
        let after = try rig.run(0.5)
        #expect(before.count + after.count == 98)
        #expect(rig.imu.droppedPackets == [.sequenceGap: 3])
        #expect(rig.imu.samplesLost == 3)
        let indices = (before + after).map(\.sampleIndex)
        #expect(indices.last! - indices.first! == 100)
    }

    /// The hub resets by itself: its advertisement and reset notice arrive in mid-stream. The
    /// driver counts it and says it is no longer configured; configuring again turns the reports
    /// back on and the samples resume.
    @Test("a reset mid-stream: seen, counted, the reports turned on again by configure")
    func resetMidStream() throws {
        let rig = Rig()
        try rig.imu.configure(rig.imu.defaultConfiguration)
        #expect(try rig.run(0.3).count == 31)
        rig.bus.triggerPowerOnReset(rig.address)
        #expect(rig.emulator.enabledReports.isEmpty)
        #expect(try rig.run(0.2).isEmpty)
        #expect(rig.imu.hubResets == 1)
        #expect(try !rig.imu.isStillConfigured())
        try rig.imu.configure(rig.imu.defaultConfiguration)
        #expect(try rig.imu.isStillConfigured())
        #expect(rig.emulator.enabledReports.count == 6)
        #expect(try rig.run(0.3).count == 31)
        // The hub's sequence numbers started again: no gap counted for it.
        #expect(rig.imu.droppedPackets.isEmpty)
    }

    /// Every 7th read misread as on a controller that does not wait out the stretched clock: the
    /// headers are caught and counted, the reads go on, every sample either arrives or is counted.
    @Test("a stretched clock misread: implausible headers counted, no sample unaccounted")
    func stretchedClock() throws {
        let rig = Rig(options: EmulatorOptions(stretchedReadEvery: 7))
        var configured = false
        for _ in 0..<5 where !configured {
            do {
                try rig.imu.configure(rig.imu.defaultConfiguration)
                configured = true
            } catch {}
        }
        #expect(configured)
        let frames = try rig.run(2)
        let dropped = rig.imu.droppedPackets
        #expect(dropped[.implausibleHeader, default: 0] > 0, "\(dropped)")
        #expect(!frames.isEmpty)
        // Samples are the gyroscope reports: each either read or counted lost by its sequence number.
        let span = frames.last!.sampleIndex - frames.first!.sampleIndex + 1
        #expect(span - frames.count == rig.imu.samplesLost)
        #expect(rig.imu.samplesLost > 0)
    }

    /// Each transfer takes the channel's next sequence number, a continuation too (1000-3927
    /// Figure 1-26: "increments once for each cargo sent or cargo continuation sent").
    @Test("the emulator: a read shorter than the cargo leaves the rest behind a continuation header")
    func emulatorContinuation() throws {
        let time = Time()
        let emulator = BNO08xEmulator(source: ConstantSource(), now: time.now)
        // Power-on: the advertisement (7 bytes of cargo) on channel 0 comes first.
        #expect(emulator.handleRead(count: 4) == [11, 0, 0, 0])
        #expect(emulator.handleRead(count: 7) == [11, 0x80, 0, 1, 0x00, 0x01, 0x04])
        #expect(emulator.handleRead(count: 8) == [8, 0x80, 0, 2, 0, 0, 0, 0])
        // Then the reset notice on channel 1, then nothing.
        #expect(emulator.handleRead(count: 5) == [5, 0, 1, 0, 1])
        #expect(emulator.handleRead(count: 4) == [0, 0, 0, 0])
    }
}
