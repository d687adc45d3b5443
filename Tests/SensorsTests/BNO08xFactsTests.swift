import I2C
@testable import MotionSimulator
@testable import Sensors
import Testing

/// BNO08x: the constants of SHTP and SH-2, each with where it was checked. torvalds/linux has no
/// driver for the hub (drivers/iio/imu/bno055/ is the BNO055's), and it has no registers, so the
/// sources are:
/// - DS: the BNO080 datasheet 1000-3927 (Hillcrest, October 2017; its pages are public), by
///   section and figure;
/// - sh2: CEVA's sh2 library (Apache-2.0) as adafruit/Adafruit_BNO08x vendors it (read at 0301e6d:
///   src/sh2.h, src/sh2.c, src/sh2_SensorValue.c and .h, src/shtp.c, src/shtp.h);
/// - CP: adafruit/Adafruit_CircuitPython_BNO08x (read at a9aa286: adafruit_bno08x/__init__.py,
///   i2c.py), which keeps the report lengths in a table where sh2 learns them from the hub.
/// The driver and the emulator are each compared with this table; neither is compared with the other.
@Suite("BNO08x facts")
struct BNO08xFactsTests {
    struct Report {
        let id: UInt8
        /// Bytes, the 4-byte common header included.
        let length: Int
        /// value = count / 2^q.
        let q: Int
        let source: String
    }

    static let reports: [SH2Report: Report] = [
        .accelerometer: Report(id: 0x01, length: 10, q: 8, source: "DS Figure 5-2; sh2.h SH2_ACCELEROMETER; sh2_SensorValue.c decodeAccelerometer SCALE_Q(8); CP 10 bytes"),
        .gyroscope: Report(id: 0x02, length: 10, q: 9, source: "DS Figure 1-34; sh2.h SH2_GYROSCOPE_CALIBRATED; decodeGyroscopeCalibrated SCALE_Q(9); CP 10"),
        .magneticField: Report(id: 0x03, length: 10, q: 4, source: "sh2.h SH2_MAGNETIC_FIELD_CALIBRATED; decodeMagneticFieldCalibrated SCALE_Q(4); CP 10"),
        .linearAcceleration: Report(id: 0x04, length: 10, q: 8, source: "sh2.h SH2_LINEAR_ACCELERATION; decodeLinearAcceleration SCALE_Q(8); CP 10"),
        .rotationVector: Report(id: 0x05, length: 14, q: 14, source: "sh2.h SH2_ROTATION_VECTOR; decodeRotationVector i j k real SCALE_Q(14), accuracy at 12 SCALE_Q(12); CP 14"),
        .gravity: Report(id: 0x06, length: 10, q: 8, source: "sh2.h SH2_GRAVITY; decodeGravity SCALE_Q(8); CP 10"),
        .uncalibratedGyroscope: Report(id: 0x07, length: 16, q: 9, source: "sh2.h SH2_GYROSCOPE_UNCALIBRATED; decodeGyroscopeUncal values at 4–9, bias at 10–15, SCALE_Q(9)"),
        .gameRotationVector: Report(id: 0x08, length: 12, q: 14, source: "sh2.h SH2_GAME_ROTATION_VECTOR; decodeGameRotationVector SCALE_Q(14); CP 12"),
        .uncalibratedMagneticField: Report(id: 0x0F, length: 16, q: 4, source: "sh2.h SH2_MAGNETIC_FIELD_UNCALIBRATED; decodeMagneticFieldUncal bias at 10–15, SCALE_Q(4)"),
        .stepCounter: Report(id: 0x11, length: 12, q: 0, source: "sh2.h SH2_STEP_COUNTER; sh2_SensorValue.h steps 16 bits, latency 32 at 4; CP 12, steps '<H' at 8"),
        .stabilityClassifier: Report(id: 0x13, length: 6, q: 0, source: "sh2.h SH2_STABILITY_CLASSIFIER; decodeStabilityClassifier byte 4; CP 6"),
    ]

    static let control = (
        setFeature: UInt8(0xFD),            // DS Figure 1-30, Figure 5-1; sh2.c SENSORHUB_SET_FEATURE_CMD
        setFeatureLength: 17,               // sh2.c SetFeatureReport_t: 1+1+1+2+4+4+4
        setFeatureIntervalOffset: 5,        // sh2.c reportInterval_uS after id, sensor id, flags, sensitivity
        getFeatureResponse: UInt8(0xFC),    // DS Figure 1-30; sh2.c SENSORHUB_GET_FEATURE_RESP
        productIDRequest: UInt8(0xF9),      // DS Figure 1-28 (ID, reserved); sh2.c ProdIdReq_t
        productIDResponse: UInt8(0xF8),     // DS Figure 1-29; sh2.c ProdIdResp_t
        productIDResponseLength: 16,        // DS Figure 1-29 bytes 0–15; sh2.c ProdIdResp_t
        baseTimestamp: UInt8(0xFB),         // DS Figure 1-35; sh2.c SENSORHUB_BASE_TIMESTAMP_REF
        timestampRebase: UInt8(0xFA),       // sh2.c SENSORHUB_TIMESTAMP_REBASE; CP _TIMESTAMP_REBASE
        timebaseLength: 5,                  // DS Figure 1-35 (ID, 4 bytes); CP _REPORT_LENGTHS 5
        tick: 100e-6                        // DS §1.4.5.3 "Delay has a resolution of 100µs"; sh2.c × 100 µs
    )

    static let transport = (
        headerSize: 4,                      // DS Figure 1-26; shtp.c SHTP_HDR_LEN
        continuationBit: UInt16(0x8000),    // DS Figure 1-26 bit 15; shtp.c & ~0x8000
        channels: [UInt8](0...5),           // DS §1.4.1 "6 channels"; CP BNO_CHANNEL_* 0…5
        control: UInt8(2), inputReports: UInt8(3), executable: UInt8(1), command: UInt8(0),
        reset: UInt8(1), resetComplete: UInt8(1),  // DS Figure 1-27; sh2.c EXECUTABLE_DEVICE_*
        advertisementResponse: UInt8(0),    // shtp.c RESP_ADVERTISE on SHTP_CHAN_COMMAND
        addresses: [UInt8(0x4A), 0x4B]      // CP i2c.py default 0x4A; SparkFun library 0x4B, "0x4A is also possible"
    )

    @Test("the driver's reports: IDs, lengths and Q points as the table")
    func driverReports() {
        for report in SH2Report.allCases {
            let fact = Self.reports[report]
            #expect(fact != nil, "\(report) has no fact")
            guard let fact else { continue }
            #expect(report.rawValue == fact.id && report.length == fact.length && report.qPoint == fact.q, "\(report): \(fact.source)")
        }
        #expect(Set(SH2Report.allCases) == Set(Self.reports.keys))
    }

    @Test("the driver's control reports, timebase and transport as the table")
    func driverControlAndTransport() {
        let c = Self.control, t = Self.transport
        #expect(SH2Control.setFeature == c.setFeature && SH2Control.setFeatureLength == c.setFeatureLength)
        #expect(SH2Control.getFeatureResponse == c.getFeatureResponse)
        #expect(SH2Control.productIDRequest == c.productIDRequest && SH2Control.productIDRequestCargo == [c.productIDRequest, 0])
        #expect(SH2Control.productIDResponse == c.productIDResponse && SH2Control.productIDResponseLength == c.productIDResponseLength)
        #expect(SH2Control.baseTimestamp == c.baseTimestamp && SH2Control.timestampRebase == c.timestampRebase)
        #expect(SH2Control.timebaseLength == c.timebaseLength && SH2Control.tick == c.tick)
        let command = SH2Control.setFeature(.gyroscope, interval: 0x0102_0304)
        #expect(command.count == c.setFeatureLength && command[0] == c.setFeature && command[1] == 0x02)
        #expect(Array(command[c.setFeatureIntervalOffset..<(c.setFeatureIntervalOffset + 4)]) == [0x04, 0x03, 0x02, 0x01])

        #expect(SHTPHeader.size == t.headerSize && SHTPHeader.continuationBit == t.continuationBit)
        #expect(SHTPChannel.command == t.command && SHTPChannel.executable == t.executable)
        #expect(SHTPChannel.control == t.control && SHTPChannel.inputReports == t.inputReports && SHTPChannel.highest == t.channels.last)
        #expect(SHTPExecutable.reset == t.reset && SHTPExecutable.resetComplete == t.resetComplete)
        #expect(ChipDescriptor.bno08x.identity.addresses.map(\.rawValue) == t.addresses)
    }

    /// DS Figure 1-29: ID, reset cause, version major, minor, part number (32 bits), build number
    /// (32 bits), version patch (16 bits), two reserved; all little-endian (sh2.c ProdIdResp_t).
    @Test("the driver reads the Product ID Response's fields where the datasheet puts them")
    func driverProductID() throws {
        let bytes: [UInt8] = [0xF8, 0x02, 3, 2, 0x53, 0xA6, 0x98, 0x00, 0x10, 0x00, 0x00, 0x00, 0x07, 0x01, 0, 0]
        let id = try #require(SH2ProductID(bytes[...]))
        #expect(id.resetCause == 2 && id.versionMajor == 3 && id.versionMinor == 2)
        #expect(id.partNumber == 0x0098_A653 && id.buildNumber == 0x10 && id.versionPatch == 0x0107)
    }

    /// DS Figure 1-34: status bits 1:0 the accuracy, bits 7:2 the delay's upper six bits, byte 3
    /// its lower eight; §1.4.5.3 and sh2.c: time = reference − base delta + delay, 100 µs ticks.
    @Test("the driver's status byte and timebase as the datasheet's")
    func driverStatusAndDelay() {
        let cargo: [UInt8] = [0xFB, 0x10, 0, 0, 0, 0x02, 1, 0b1010_1110, 0x05, 0, 0, 0, 0, 0, 0]
        var readings: [SH2Reading] = []
        #expect(SH2Parse.readings(cargo, into: &readings) == 0)
        #expect(readings.count == 1)
        #expect(readings.first?.accuracy == 0b10)
        // delay = 0b101011 << 8 | 5 = 11013 ticks, base 16 ticks.
        #expect(readings.first.map { ($0.time / Self.control.tick).rounded() } == Double(11013 - 16))
    }

    @Test("the emulator's reports, channels and control replies as the table")
    func emulatorMatches() {
        for (report, fact) in Self.reports {
            let kind = BNO08xEmulator.reportKinds[fact.id]
            #expect(kind?.length == fact.length && kind?.q == fact.q, "\(report): \(fact.source)")
        }
        #expect(BNO08xEmulator.reportKinds.count == Self.reports.count)
        let t = Self.transport
        #expect(BNO08xEmulator.Channel.command == t.command && BNO08xEmulator.Channel.executable == t.executable)
        #expect(BNO08xEmulator.Channel.control == t.control && BNO08xEmulator.Channel.inputReports == t.inputReports)
        #expect(BNO08xEmulator.Channel.count == t.channels.count)
        #expect(BNO08xEmulator.advertisement.first == t.advertisementResponse)
    }

    /// The emulator's packets as the datasheet lays them out: after power-on the advertisement on
    /// channel 0 and the reset notice on channel 1; a Product ID Request answered by 16 bytes on
    /// channel 2; a Set Feature for the gyroscope answered by a Get Feature Response, then input
    /// packets of a timebase reference (5 bytes) and a 10-byte gyroscope report (DS Figure 5-2)
    /// whose axes, little-endian at bytes 4–9 and Q9, are the rate the emulated hub turns at.
    @Test("the emulator's packets: reset notice, Product ID, Get Feature Response, timebase and report")
    func emulatorPackets() throws {
        let clock = BNO08xTests.Time()
        var turning = PhysicalState.flatAtRest()
        turning.angularRate = SIMD3(0.5, -0.25, 1)
        let emulator = BNO08xEmulator(source: ConstantSource(turning), now: clock.now)
        func packet() -> (channel: UInt8, cargo: [UInt8])? {
            let header = emulator.handleRead(count: 4)
            let length = Int(UInt16(header[0]) | UInt16(header[1] & 0x7F) << 8)
            guard length > 0 else { return nil }
            let whole = emulator.handleRead(count: length)
            return (whole[2], Array(whole[4...]))
        }
        func send(_ cargo: [UInt8], on channel: UInt8) {
            let length = cargo.count + 4
            emulator.handleWrite([UInt8(length & 0xFF), UInt8(length >> 8), channel, 0] + cargo)
        }
        let c = Self.control, t = Self.transport
        #expect(packet()?.channel == t.command)
        let notice = packet()
        #expect(notice?.channel == t.executable && notice?.cargo == [t.resetComplete])
        #expect(packet() == nil)
        send([c.productIDRequest, 0], on: t.control)
        let productID = try #require(packet())
        #expect(productID.channel == t.control && productID.cargo.count == c.productIDResponseLength && productID.cargo.first == c.productIDResponse)
        var setFeature = [UInt8](repeating: 0, count: c.setFeatureLength)
        setFeature[0] = c.setFeature
        setFeature[1] = Self.reports[.gyroscope]!.id
        setFeature[c.setFeatureIntervalOffset] = 0x10
        setFeature[c.setFeatureIntervalOffset + 1] = 0x27  // 10 000 µs
        send(setFeature, on: t.control)
        let response = try #require(packet())
        #expect(response.channel == t.control && response.cargo.count == c.setFeatureLength && response.cargo.first == c.getFeatureResponse)
        #expect(abs((emulator.enabledReports[Self.reports[.gyroscope]!.id] ?? 0) - 0.01) < 1e-12)
        clock.advance(0.005)
        let input = try #require(packet())
        #expect(input.channel == t.inputReports)
        #expect(input.cargo.count == c.timebaseLength + Self.reports[.gyroscope]!.length)
        #expect(input.cargo.first == c.baseTimestamp && input.cargo[c.timebaseLength] == Self.reports[.gyroscope]!.id)
        let report = Array(input.cargo[c.timebaseLength...])
        let axes = (0..<3).map { (axis: Int) -> Double in Double(Int16(bitPattern: UInt16(report[4 + 2 * axis]) | UInt16(report[5 + 2 * axis]) << 8)) }
        #expect(SIMD3(axes[0], axes[1], axes[2]) / Double(1 << Self.reports[.gyroscope]!.q) == turning.angularRate)
    }
}
