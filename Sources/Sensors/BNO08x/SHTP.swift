import I2C

/// The 4-byte header in front of every SHTP cargo (BNO080 datasheet 1000-3927 §1.4.1, Figure 1-26
/// "SHTP Header"; CEVA's shtp.c, SHTP_HDR_LEN 4): length LSB, length MSB, channel, sequence
/// number. The length counts the header too; bit 15 of it (the MSB's top bit) marks a
/// continuation: the rest of a cargo whose start an earlier transfer carried. A length of 0 means
/// the hub has nothing to send; 0xFFFF is reserved (what a failed peripheral reads, Figure 1-26).
struct SHTPHeader: Sendable, Equatable {
    static let size = 4
    /// Bit 15 of the length field (1000-3927 Figure 1-26; shtp.c masks it with ~0x8000).
    static let continuationBit: UInt16 = 0x8000

    /// Bytes of the packet, header included (15 bits).
    var length: Int
    var isContinuation: Bool
    var channel: UInt8
    /// Counts the transfers sent on `channel` in one direction, modulo 256: one for each cargo
    /// and one for each continuation (1000-3927 Figure 1-26: each channel and direction has its
    /// own; shtp.c expects a continuation's to follow the previous transfer's).
    var sequence: UInt8

    init(length: Int, isContinuation: Bool = false, channel: UInt8, sequence: UInt8) {
        self.length = length
        self.isContinuation = isContinuation
        self.channel = channel
        self.sequence = sequence
    }

    /// The header at the start of `bytes` (at least four).
    init(_ bytes: some RandomAccessCollection<UInt8>) {
        let start = bytes.startIndex
        let field = UInt16(bytes[start]) | UInt16(bytes[bytes.index(start, offsetBy: 1)]) << 8
        length = Int(field & ~Self.continuationBit)
        isContinuation = field & Self.continuationBit != 0
        channel = bytes[bytes.index(start, offsetBy: 2)]
        sequence = bytes[bytes.index(start, offsetBy: 3)]
    }

    var bytes: [UInt8] {
        let field = UInt16(length) | (isContinuation ? Self.continuationBit : 0)
        return [UInt8(field & 0xFF), UInt8(field >> 8), channel, sequence]
    }

    /// Bytes after the header.
    var cargoLength: Int { max(0, length - Self.size) }
}

/// The SHTP channels a BNO08x opens (1000-3927 §1.4.1: "The BNO080 supports 6 channels";
/// Adafruit_CircuitPython_BNO08x `BNO_CHANNEL_*` the same).
enum SHTPChannel {
    /// SHTP's own commands and the advertisement of the hub's channels.
    static let command: UInt8 = 0
    /// The executable: reset, on, sleep; the hub says "reset complete" here (1000-3927 Figure 1-27).
    static let executable: UInt8 = 1
    /// SH-2 control: Set Feature, Product ID, command requests and responses.
    static let control: UInt8 = 2
    /// Input sensor reports (normal).
    static let inputReports: UInt8 = 3
    /// Input sensor reports of the wake-up sensors.
    static let wakeReports: UInt8 = 4
    /// The gyro-integrated rotation vector.
    static let gyroRotationVector: UInt8 = 5
    /// The highest channel a BNO08x uses: a header naming another is not the hub's.
    static let highest: UInt8 = 5
}

/// The executable channel's commands and its one notice (1000-3927 Figure 1-27; sh2.c
/// EXECUTABLE_DEVICE_CMD_RESET 1, EXECUTABLE_DEVICE_RESP_RESET_COMPLETE 1).
enum SHTPExecutable {
    /// Host → hub: reset.
    static let reset: UInt8 = 1
    /// Hub → host: the hub has (re)started; every report is off again.
    static let resetComplete: UInt8 = 1
}

/// Why the transport threw something away: every packet it could not use is counted under one.
package enum SHTPDropReason: String, Sendable, CaseIterable {
    /// A sequence number skipped: the transfers in between (each a packet, or a continuation of
    /// one) never arrived.
    case sequenceGap = "sequence gap"
    /// A header no hub sends (the length field all ones, a channel above 5, a length below the
    /// header's): what a controller that mishandles clock stretching reads (a Raspberry Pi's).
    case implausibleHeader = "implausible header"
    /// The rest of a cargo whose start was lost, or a cargo cut short.
    case partialPacket = "partial packet"
    /// Input reports the hub sent before it reset (seen by its reset notice).
    case hubReset = "hub reset"
    /// A report this driver does not parse, or one too short for its ID.
    case unknownReport = "unknown report"
}

/// One packet as received: its channel and its whole cargo.
struct SHTPPacket: Sendable, Equatable {
    var channel: UInt8
    var sequence: UInt8
    var cargo: [UInt8]
}

/// SHTP over I2C, host side: packets out with a sequence number per channel; packets in as a
/// header read then one read of the whole packet (in pieces no longer than the bus's limit, each
/// after a continuation header), every sequence gap, implausible header and partial packet counted.
struct SHTPTransport: Sendable {
    /// The longest packet this driver accepts. The hub's advertisement gives its own limits; its
    /// largest packets (the advertisement itself) are a few hundred bytes, so a length beyond
    /// this is a corrupted header.
    static let maximumPacketLength = 1024

    let bus: any I2CBus
    let address: I2CAddress
    /// The sequence number of the next packet the host sends, per channel.
    private var sent = [UInt8](repeating: 0, count: Int(SHTPChannel.highest) + 1)
    /// The sequence number expected next from the hub, per channel; nil: take whatever comes
    /// (after a reset, at the start, after a corrupted read).
    private var expected = [UInt8?](repeating: nil, count: Int(SHTPChannel.highest) + 1)
    /// Packets lost or thrown away, by reason.
    private(set) var dropped: [SHTPDropReason: Int] = [:]

    init(bus: any I2CBus, address: I2CAddress) {
        self.bus = bus
        self.address = address
    }

    mutating func count(_ reason: SHTPDropReason, _ packets: Int = 1) {
        guard packets > 0 else { return }
        dropped[reason, default: 0] += packets
    }

    /// The hub restarted: its sequence numbers start again, and so do ours.
    mutating func hubRestarted() {
        for index in expected.indices { expected[index] = nil }
        for index in sent.indices { sent[index] = 0 }
    }

    /// Sends `cargo` on `channel` in one write: the hub takes no fragmented cargo (1000-3927
    /// Figure 1-26), and this driver's are at most 17 bytes.
    mutating func send(_ cargo: [UInt8], on channel: UInt8) throws(I2CError) {
        let header = SHTPHeader(length: cargo.count + SHTPHeader.size, channel: channel, sequence: sent[Int(channel)])
        try bus.write(address, header.bytes + cargo)
        sent[Int(channel)] &+= 1
    }

    /// The next packet the hub has, or nil when it has none (a header of length 0) or when what
    /// came was not a usable packet (counted).
    mutating func receive() throws(I2CError) -> SHTPPacket? {
        let header = SHTPHeader(try bus.read(address, count: SHTPHeader.size))
        if header.length == 0 { return nil }
        guard Self.isPlausible(header) else {
            count(.implausibleHeader)
            forgetSequences()
            return nil
        }
        if header.isContinuation {
            // The start of this cargo went to an earlier read whose header was lost: drop the rest.
            // Its transfers' sequence numbers are used up: the next packet follows the last of them.
            expected[Int(header.channel)] = try discard(header) &+ 1
            count(.partialPacket)
            return nil
        }
        // The header read took none of the cargo: the whole packet comes again behind a
        // continuation header, in reads the bus can carry.
        var cargo: [UInt8] = []
        cargo.reserveCapacity(header.cargoLength)
        let limit = max(SHTPHeader.size + 1, bus.maximumReadLength ?? Self.maximumPacketLength)
        // Each transfer of a cargo has a sequence number of its own (1000-3927 Figure 1-26): the
        // next packet on the channel follows the last transfer's, not the first's.
        var lastSequence = header.sequence
        while cargo.count < header.cargoLength {
            let remaining = header.cargoLength - cargo.count
            let chunk = try bus.read(address, count: SHTPHeader.size + min(remaining, limit - SHTPHeader.size))
            let again = SHTPHeader(chunk)
            guard Self.isPlausible(again), again.channel == header.channel, again.length > 0 else {
                count(again.length == 0 ? .partialPacket : .implausibleHeader)
                forgetSequences()
                return nil
            }
            lastSequence = again.sequence
            let available = min(again.cargoLength, chunk.count - SHTPHeader.size)
            cargo += chunk[SHTPHeader.size..<(SHTPHeader.size + available)]
            if again.cargoLength <= chunk.count - SHTPHeader.size, cargo.count < header.cargoLength {
                // The hub says this was all, yet the cargo is short.
                count(.partialPacket)
                return nil
            }
        }
        if Self.isRestartNotice(channel: header.channel, cargo: cargo) { hubRestarted() }
        checkSequence(header, last: lastSequence)
        return SHTPPacket(channel: header.channel, sequence: header.sequence, cargo: cargo)
    }

    /// Reads and drops what is left of a cargo whose start was lost; returns the sequence number
    /// of the last transfer of it that read plausibly.
    private mutating func discard(_ header: SHTPHeader) throws(I2CError) -> UInt8 {
        var left = header.cargoLength
        var last = header.sequence
        let limit = max(SHTPHeader.size + 1, bus.maximumReadLength ?? Self.maximumPacketLength)
        while left > 0 {
            let chunk = try bus.read(address, count: SHTPHeader.size + min(left, limit - SHTPHeader.size))
            let again = SHTPHeader(chunk)
            guard Self.isPlausible(again), again.channel == header.channel, again.length > 0 else { return last }
            last = again.sequence
            left = again.cargoLength - (chunk.count - SHTPHeader.size)
        }
        return last
    }

    /// Counts the transfers a sequence number says were skipped on the header's channel before
    /// this packet, and expects the next after `last`, the packet's last transfer.
    private mutating func checkSequence(_ header: SHTPHeader, last: UInt8) {
        let channel = Int(header.channel)
        if let expected = expected[channel] { count(.sequenceGap, Int(header.sequence &- expected)) }
        expected[channel] = last &+ 1
    }

    /// After a corrupted read the packet it carried is lost, counted as such: the next sequence
    /// number on every channel is taken as it comes, so that one loss is not counted twice.
    private mutating func forgetSequences() {
        for index in expected.indices { expected[index] = nil }
    }

    /// The hub's advertisement (channel 0, cargo starting with 0) or its reset notice (channel 1,
    /// 1): the hub restarted and numbers its packets from 0 again. This driver never asks for the
    /// advertisement, so one that comes is the hub's own, after a reset.
    static func isRestartNotice(channel: UInt8, cargo: [UInt8]) -> Bool {
        channel == SHTPChannel.command && cargo.first == 0 || channel == SHTPChannel.executable && cargo.first == SHTPExecutable.resetComplete
    }

    /// Whether a hub could have sent `header`: a known channel, and a length between the
    /// header's own and ``maximumPacketLength``. Four 0xFF bytes (a stretched clock misread)
    /// fail both.
    static func isPlausible(_ header: SHTPHeader) -> Bool {
        header.channel <= SHTPChannel.highest && header.length >= SHTPHeader.size && header.length <= maximumPacketLength
    }
}
