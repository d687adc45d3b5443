import Fusion
import Locking

/// The BNO080/085/086 sensor hub as its host sees it over I2C, written from the BNO080 datasheet
/// 1000-3927 (October 2017) alone: §1.4.1 (Figure 1-26 the SHTP header, the six channels, Figure
/// 1-27 the executable channel), §1.4.2 (Figures 1-28 to 1-30: Product ID, the control reports),
/// §1.4.5 (Figure 1-34 an input report's common fields, Figure 1-35 and §1.4.5.3 the timebase),
/// §5 (Figures 5-1 and 5-2: Set Feature and the packet of a report behind its timebase). The Q
/// points and lengths of the reports the datasheet does not lay out are the SH-2 Reference
/// Manual's (1000-3625), as CEVA's published sh2 library decodes them.
///
/// The hub has no registers: every write is an SHTP packet from the host, every read the next
/// piece of the hub's outgoing packets. A read returns a 4-byte header and as much of the cargo
/// as the read asks for; a cargo longer than that comes in later reads behind a header with the
/// continuation bit and the length still to come (a header read alone takes none of the cargo).
/// Every transfer has a sequence number of its own: a cargo's first and each continuation take
/// the channel's next (Figure 1-26: "increments once for each cargo sent or cargo continuation
/// sent"). With nothing to send the hub answers a header of length 0.
///
/// Set Feature turns a report on at its interval: the hub then makes, on its own sampling
/// schedule from that moment (the first report is of that instant), one packet on the input-report channel for each instant reports
/// fall due, a Base Timestamp Reference (delta 0: the hub makes the packet at the sampling
/// instant) and the reports, each with its own sequence number; `source` at that instant gives
/// the values. Packets wait in a queue of ``queueCapacity``; when it is full the oldest is lost
/// (its sequence number skipped, as the real hub's are when the host reads too slowly).
///
/// Faults: ``powerOnReset()`` (the bus's `reset` fault) restarts the hub in mid-stream: every
/// report off, sequence numbers from 0, the advertisement on channel 0 and the reset notice on
/// channel 1 queued. ``losePackets(_:)`` skips the next packets' sequence numbers.
/// ``EmulatorOptions/stretchedReadEvery`` models a controller that does not wait out the hub's
/// clock stretching (the Raspberry Pi's): every N-th read returns 0xFF bytes, and what the hub
/// sent in it is lost to the host.
package final class BNO08xEmulator: ChipEmulator {
    package let chipName = "BNO08x"
    /// Packets the hub holds for the host.
    static let queueCapacity = 32

    private let source: any PhysicalSource
    private let now: @Sendable () -> Double
    private let options: EmulatorOptions
    private let hub: Locked<Hub>

    /// The SHTP channels (1000-3927 §1.4.1: 0 SHTP command, 1 executable, 2 sensor hub control,
    /// 3 input reports, 4 wake input reports, 5 gyro rotation vector).
    enum Channel {
        static let command: UInt8 = 0
        static let executable: UInt8 = 1
        static let control: UInt8 = 2
        static let inputReports: UInt8 = 3
        static let count = 6
    }

    /// One input report this emulator makes: its ID, length and Q point. The gyroscope's layout is
    /// 1000-3927 Figure 1-34, the accelerometer's Figure 5-2; the others are the SH-2 Reference
    /// Manual's (1000-3625) as CEVA's sh2 library decodes them.
    struct ReportKind {
        let id: UInt8
        let length: Int
        let q: Int
    }
    static let reportKinds: [UInt8: ReportKind] = [
        0x01: ReportKind(id: 0x01, length: 10, q: 8),   // accelerometer, m/s²
        0x02: ReportKind(id: 0x02, length: 10, q: 9),   // gyroscope calibrated, rad/s
        0x03: ReportKind(id: 0x03, length: 10, q: 4),   // magnetic field calibrated, µT
        0x04: ReportKind(id: 0x04, length: 10, q: 8),   // linear acceleration, m/s²
        0x05: ReportKind(id: 0x05, length: 14, q: 14),  // rotation vector + accuracy (Q12)
        0x06: ReportKind(id: 0x06, length: 10, q: 8),   // gravity, m/s²
        0x07: ReportKind(id: 0x07, length: 16, q: 9),   // gyroscope uncalibrated + bias
        0x08: ReportKind(id: 0x08, length: 12, q: 14),  // game rotation vector
        0x0F: ReportKind(id: 0x0F, length: 16, q: 4),   // magnetic field uncalibrated + hard iron
        0x11: ReportKind(id: 0x11, length: 12, q: 0),   // step counter
        0x13: ReportKind(id: 0x13, length: 6, q: 0),    // stability classifier
    ]

    struct Feature {
        var interval: Double
        var nextDue: Double
        var sequence: UInt8 = 0
    }

    /// A cargo waiting: its sequence numbers are given as its transfers go out.
    struct Packet {
        var channel: UInt8
        var cargo: [UInt8]
    }

    struct Hub {
        var queue: [Packet] = []
        /// The packet being read: how many of its cargo bytes went out, and in how many transfers.
        var current: Packet?
        var sent = 0
        var transfers = 0
        /// The sequence number of each channel's next transfer.
        var sequence = [UInt8](repeating: 0, count: Channel.count)
        var features: [UInt8: Feature] = [:]
        var readTransactions = 0
        /// Packets whose sequence numbers are to be skipped (``losePackets(_:)``).
        var toLose = 0
        /// Packets the queue had no room for.
        var overflowed = 0
    }

    package init(source: any PhysicalSource, now: @escaping @Sendable () -> Double, options: EmulatorOptions = .init()) {
        self.source = source
        self.now = now
        self.options = options
        hub = Locked(Hub())
        powerOnReset()
    }

    // MARK: Faults and inspection

    /// The hub restarts: every report off, sequence numbers from 0, the advertisement (channel 0)
    /// and the reset notice (channel 1) waiting for the host.
    package func powerOnReset() {
        hub.withLock { hub in
            hub = Hub()
            Self.queue(Self.advertisement, on: Channel.command, in: &hub)
            Self.queue([1], on: Channel.executable, in: &hub)
        }
    }

    /// The next `count` packets the hub makes are lost on the way (their sequence numbers used).
    package func losePackets(_ count: Int) {
        hub.withLock { $0.toLose += max(0, count) }
    }

    /// The reports turned on: ID → interval, s.
    package var enabledReports: [UInt8: Double] {
        hub.withLock { $0.features.mapValues(\.interval) }
    }

    /// Packets the hub's queue had no room for since it started.
    package var overflowedPackets: Int { hub.withLock { $0.overflowed } }

    /// There are no registers: 0.
    package func peek(_ register: UInt8) -> UInt8 { 0 }

    // MARK: Bus

    package func handleWrite(_ bytes: [UInt8]) {
        let time = now()
        hub.withLock { hub in
            advance(&hub, to: time)
            guard bytes.count >= 4 else { return }
            let length = Int(UInt16(bytes[0]) | UInt16(bytes[1] & 0x7F) << 8)
            let channel = bytes[2]
            guard length >= 4, length <= bytes.count else { return }
            let cargo = Array(bytes[4..<length])
            switch channel {
            case Channel.executable where cargo.first == 1:
                // Reset (1000-3927 Figure 1-27): back as after power-on.
                hub = Hub()
                Self.queue(Self.advertisement, on: Channel.command, in: &hub)
                Self.queue([1], on: Channel.executable, in: &hub)
            case Channel.command where cargo.first == 0:
                Self.queue(Self.advertisement, on: Channel.command, in: &hub)
            case Channel.control:
                control(cargo, in: &hub, at: time)
            default:
                break
            }
        }
    }

    package func handleRead(count: Int) -> [UInt8] {
        let time = now()
        return hub.withLock { hub in
            advance(&hub, to: time)
            hub.readTransactions += 1
            var reply = Self.serve(count: max(0, count), from: &hub)
            if let every = options.stretchedReadEvery, every > 0, hub.readTransactions % every == 0 {
                for index in reply.indices { reply[index] = 0xFF }
            }
            return reply
        }
    }

    /// A register read is no SHTP transfer: the write of one byte is a header fragment the hub
    /// ignores, and the read takes the next piece of the queue as any read does.
    package func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let reply = handleRead(count: buffer.count)
        buffer.copyBytes(from: reply)
        return reply.count
    }

    // MARK: The hub

    /// The advertisement's cargo: 0 (advertisement) then tag-length-value entries; this emulator
    /// sends only the GUID entry (tag 1, 4 bytes) of the SHTP application, GUID 0 (CEVA's
    /// shtp.h: TAG_GUID 1, GUID_SHTP 0; the command channel's advertisement response is 0).
    static let advertisement: [UInt8] = [0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00]

    /// Queues `cargo`; a packet lost on the way, or pushed out of a full queue, uses up its
    /// channel's next sequence number.
    private static func queue(_ cargo: [UInt8], on channel: UInt8, in hub: inout Hub) {
        if hub.toLose > 0 {
            hub.toLose -= 1
            hub.sequence[Int(channel)] &+= 1
            return
        }
        if hub.queue.count >= queueCapacity {
            let lost = hub.queue.removeFirst()
            hub.sequence[Int(lost.channel)] &+= 1
            hub.overflowed += 1
        }
        hub.queue.append(Packet(channel: channel, cargo: cargo))
    }

    /// One read of `count` bytes: a header, then the cargo still to send, up to the read's length.
    private static func serve(count: Int, from hub: inout Hub) -> [UInt8] {
        var reply = [UInt8](repeating: 0, count: count)
        if hub.current == nil, !hub.queue.isEmpty {
            hub.current = hub.queue.removeFirst()
            hub.sent = 0
            hub.transfers = 0
        }
        guard let packet = hub.current else { return reply }  // length 0: nothing to send
        let remaining = packet.cargo.count - hub.sent
        let field = UInt16(remaining + 4) | (hub.transfers > 0 ? 0x8000 : 0)
        let sequence = hub.sequence[Int(packet.channel)]
        hub.sequence[Int(packet.channel)] &+= 1
        let header: [UInt8] = [UInt8(field & 0xFF), UInt8(field >> 8), packet.channel, sequence]
        for index in 0..<min(4, count) { reply[index] = header[index] }
        let carried = max(0, min(count - 4, remaining))
        for index in 0..<carried { reply[4 + index] = packet.cargo[hub.sent + index] }
        hub.sent += carried
        hub.transfers += 1
        if hub.sent >= packet.cargo.count, count > 4 || packet.cargo.isEmpty { hub.current = nil }
        return reply
    }

    /// A packet on the control channel (1000-3927 Figure 1-30): Set Feature (0xFD: report ID at
    /// byte 1, report interval µs at bytes 5–8, Figure 5-1) or Product ID Request (0xF9).
    private func control(_ cargo: [UInt8], in hub: inout Hub, at time: Double) {
        switch cargo.first {
        case 0xF9:
            // Product ID Response (1000-3927 Figure 1-29, 16 bytes): reset cause 1, version
            // major 3, minor 2, part number 10004563, build 0, version patch 7, two reserved.
            var response: [UInt8] = [0xF8, 0x01, 3, 2]
            response += Self.littleEndian32(10_004_563) + Self.littleEndian32(0) + [7, 0, 0, 0]
            Self.queue(response, on: Channel.control, in: &hub)
        case 0xFD where cargo.count >= 17:
            let id = cargo[1]
            let microseconds = UInt32(cargo[5]) | UInt32(cargo[6]) << 8 | UInt32(cargo[7]) << 16 | UInt32(cargo[8]) << 24
            if Self.reportKinds[id] != nil {
                if microseconds == 0 {
                    hub.features[id] = nil
                } else {
                    let interval = Double(microseconds) * 1e-6
                    // The hub samples from the moment the feature is set: the first report is of that instant.
                    hub.features[id] = Feature(interval: interval, nextDue: time, sequence: hub.features[id]?.sequence ?? 0)
                }
            }
            // Get Feature Response (0xFC, Figure 1-30): the feature as now set, the Set Feature
            // layout (§5: the hub's period, which may differ from the one asked for; here the same).
            var response = cargo
            response[0] = 0xFC
            if Self.reportKinds[id] == nil { for index in 5..<9 { response[index] = 0 } }
            Self.queue(response, on: Channel.control, in: &hub)
        default:
            break
        }
    }

    /// Makes the packets of every sampling instant up to `time`: reports due together share a packet.
    private func advance(_ hub: inout Hub, to time: Double) {
        // Bounded: at most a queue's worth of instants a call (older ones would be lost anyway).
        for _ in 0..<(Self.queueCapacity * 4) {
            guard let due = hub.features.values.map(\.nextDue).min(), due <= time else { return }
            let state = source.state(at: due)
            // Timebase reference (Figure 1-35), base delta 0: made at the sampling instant.
            var cargo: [UInt8] = [0xFB, 0, 0, 0, 0]
            for id in hub.features.keys.sorted() {
                guard var feature = hub.features[id], abs(feature.nextDue - due) < 1e-9 else { continue }
                cargo += report(id, sequence: feature.sequence, state)
                feature.sequence &+= 1
                feature.nextDue += feature.interval
                hub.features[id] = feature
            }
            Self.queue(cargo, on: Channel.inputReports, in: &hub)
        }
    }

    /// One input report (Figure 1-34): ID, sequence number, status (bits 1:0 accuracy, 3: high;
    /// bits 7:2 the delay's upper six bits, 0), delay's lower eight bits (0), values.
    private func report(_ id: UInt8, sequence: UInt8, _ state: PhysicalState) -> [UInt8] {
        guard let kind = Self.reportKinds[id] else { return [] }
        var bytes: [UInt8] = [id, sequence, 0x03, 0]
        let force = Encoding.masking(state.specificForce, deadAxes: options.deadAxes, SensorAxis.accelerometer)
        let rate = Encoding.masking(state.angularRate, deadAxes: options.deadAxes, SensorAxis.gyroscope)
        let field = Encoding.masking(state.magneticField, deadAxes: options.deadAxes, SensorAxis.magnetometer)
        let orientation = state.orientation ?? Quaternion.magneticENU(specificForce: force, magneticField: field) ?? Quaternion(w: 1, x: 0, y: 0, z: 0)
        let gravity = orientation.inverseRotate(SIMD3(0, 0, Encoding.gravity))
        func vector(_ value: SIMD3<Double>) -> [UInt8] {
            Array(Encoding.littleEndian(Encoding.counts(value, perLSB: 1 / Double(1 << kind.q))))
        }
        func quaternion(_ q: Quaternion) -> [UInt8] {
            let scale = Double(1 << kind.q)
            return [q.x, q.y, q.z, q.w].flatMap { Array(Encoding.littleEndian(Encoding.int16($0 * scale))) }
        }
        switch id {
        case 0x01: bytes += vector(force)
        case 0x02: bytes += vector(rate)
        case 0x03: bytes += vector(field)
        case 0x04: bytes += vector(force - gravity)
        case 0x05: bytes += quaternion(orientation) + Array(Encoding.littleEndian(Encoding.int16(0.05 * 4096)))
        case 0x06: bytes += vector(gravity)
        case 0x07: bytes += vector(rate) + vector(.zero)
        case 0x08: bytes += quaternion(orientation)
        case 0x0F: bytes += vector(field) + vector(.zero)
        case 0x11: bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // latency 0, no steps (the world has no gait here)
        case 0x13: bytes += [state.angularRate == .zero ? 1 : 4, 0]  // on table at rest, else in motion
        default: break
        }
        return Array(bytes.prefix(kind.length))
    }

    private static func littleEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
    }
}

extension SimulatedBoard.IMU {
    /// the CEVA BNO08x sensor hub (BNO080/085/086; its magnetometer and fusion inside).
    public static let bno08x = Self("bno08x")
}
