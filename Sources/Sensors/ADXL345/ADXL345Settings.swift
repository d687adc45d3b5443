/// Analog Devices' ADXL345, an accelerometer alone: one register map (datasheet Rev. G, Table 19).
extension ChipInfo.Family {
    package static let adxl345 = Self(rawValue: "Analog Devices ADXL345")
}

/// The ADXL345's registers this driver touches (datasheet Rev. G, Table 19 and "Register
/// Definitions"). 0x01–0x1C are reserved, "do not access": identification reads DEVID alone.
enum ADXL345Register {
    /// DEVID, 0xE5 (kernel drivers/iio/accel/adxl345_core.c ADXL345_DEVID).
    static let deviceID: UInt8 = 0x00
    /// BW_RATE: LOW_POWER (bit 4), Rate (3:0).
    static let bandwidthRate: UInt8 = 0x2C
    /// POWER_CTL: Link, AUTO_SLEEP, Measure (bit 3), Sleep, Wakeup.
    static let powerControl: UInt8 = 0x2D
    /// INT_SOURCE: DATA_READY (7) … Watermark (1), Overrun (0).
    static let interruptSource: UInt8 = 0x30
    /// DATA_FORMAT: SELF_TEST (7), SPI (6), INT_INVERT (5), FULL_RES (3), Justify (2), Range (1:0).
    static let dataFormat: UInt8 = 0x31
    /// DATAX0 … DATAZ1: x, y, z, little-endian two's complement, right-justified.
    static let dataX0: UInt8 = 0x32
    /// FIFO_CTL: FIFO_MODE (7:6: 00 bypass, 01 FIFO, 10 stream, 11 trigger), Trigger (5), Samples (4:0).
    static let fifoControl: UInt8 = 0x38
    /// FIFO_STATUS: FIFO_TRIG (7), Entries (5:0).
    static let fifoStatus: UInt8 = 0x39

    /// POWER_CTL Measure: the part measures; 0 is standby.
    static let measure: UInt8 = 0x08
    /// DATA_FORMAT FULL_RES: 4 mg/LSB in every range (kernel ADXL345_DATA_FORMAT_FULL_RES BIT(3)).
    static let fullResolution: UInt8 = 0x08
    /// DATA_FORMAT SELF_TEST.
    static let selfTest: UInt8 = 0x80
    /// FIFO_CTL FIFO_MODE stream (10): the FIFO keeps the latest 32 samples, older ones dropped.
    static let streamMode: UInt8 = 0b10 << 6
    /// INT_SOURCE Overrun: in the FIFO modes, set while the FIFO is full (Rev. G, INT_SOURCE
    /// "Overrun"), cleared as it is read.
    static let overrun: UInt8 = 0x01
    /// Bytes of one sample at DATAX0; each 6-byte read pops one FIFO entry (Rev. G, "Retrieving
    /// Data from FIFO": a read past DATAZ1 reaches FIFO_CTL, so one read per entry).
    static let sampleBytes = 6
    /// FIFO depth: 32 samples (Rev. G, "FIFO").
    static let fifoDepth = 32
}

/// The ADXL345's rate and range tables: rates and ranges as ``IMUTables`` and no gyroscope (its
/// range table is empty, so ``ChipDescriptor/hasGyroscope`` is false).
struct ADXL345Settings: Sendable {
    static let identity: UInt8 = 0xE5

    /// BW_RATE Rate codes (Rev. G, Table 7, normal power): 0x6 = 6.25 Hz … 0xD = 800 Hz. The
    /// 1600 and 3200 Hz codes (0xE, 0xF) are left out: the datasheet asks for SPI at 2 MHz or more
    /// for them, which I2C at 400 kHz cannot carry (6 bytes a sample); the codes below 6.25 Hz
    /// are left out too (no one samples motion at 0.1 Hz).
    static let rates: [SettingOption] = [6.25, 12.5, 25, 50, 100, 200, 400, 800].enumerated().map {
        SettingOption(value: $1, code: UInt8(0x6 + $0))
    }
    /// DATA_FORMAT Range 00 = ±2 g … 11 = ±16 g; with FULL_RES every range reads 3.9 mg/LSB
    /// (Table 1: scale factor 3.9 mg/LSB typical, 256 LSB/g; 10 bits at ±2 g up to 13 bits at ±16 g).
    static let ranges: [SettingOption] = [2, 4, 8, 16].enumerated().map {
        SettingOption(value: $1, code: UInt8($0), sensitivity: lsbPerG)
    }
    /// Full-resolution sensitivity, LSB/g (Table 1: 256 LSB/g typical, all g ranges, full resolution).
    static let lsbPerG = 256.0

    /// The largest count of each range in full resolution: 10 bits at ±2 g, one more per doubling
    /// (Rev. G, DATA_FORMAT "FULL_RES"), so ±2 g saturates at ±512 counts, ±16 g at ±4096.
    static func saturationCount(range code: UInt8) -> Int16 { Int16(512) << code }

    /// Self-test output change at VS = 2.5 V (Table 1, "SELF-TEST"), g: x 0.20…2.10, y −2.10…−0.20,
    /// z 0.30…3.40. Taken at 100 Hz, ±16 g full resolution as the datasheet's procedure does
    /// ("Self-Test": the part in ±16 g full resolution, 100 Hz or faster).
    static let selfTestLimits: (x: ClosedRange<Double>, y: ClosedRange<Double>, z: ClosedRange<Double>) =
        (0.20...2.10, -2.10 ... -0.20, 0.30...3.40)

    let tables = IMUTables(outputDataRates: rates, accelerometerRanges: ranges, gyroscopeRanges: [])
}
