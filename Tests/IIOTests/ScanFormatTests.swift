import IIO
import Testing

/// The buffer formats of Documentation/ABI/testing/sysfs-bus-iio and the record layout of
/// drivers/iio/industrialio-buffer.c (`iio_compute_scan_bytes`), written out by hand here.
@Suite struct ScanFormatTests {
    @Test func parsesScanTypes() throws {
        #expect(try ScanType(parsing: "le:s16/16>>0") == ScanType(bigEndian: false, signed: true, bits: 16, storageBits: 16))
        #expect(try ScanType(parsing: "be:s12/16>>4") == ScanType(bigEndian: true, signed: true, bits: 12, storageBits: 16, shift: 4))
        #expect(try ScanType(parsing: "le:u24/32X2>>0") == ScanType(bigEndian: false, signed: false, bits: 24, storageBits: 32, repeatCount: 2))
        #expect(try ScanType(parsing: "le:s64/64>>0").byteCount == 8)
        // No shift part at all is accepted too (older drivers).
        #expect(try ScanType(parsing: "le:s16/16").shift == 0)
    }

    @Test(arguments: ["", "xx:s16/16>>0", "le:q16/16>>0", "le:s16/12>>0", "le:s17/16>>0", "le:s16/16>>99", "le:s12/16>>8",
                      "le:s99999999999999999999/16>>0", "le:s16/16>0", "le:s/16>>0"])
    func rejectsMalformedScanTypes(_ text: String) {
        #expect(throws: IIOError.self) { try ScanType(parsing: text, path: "in_accel_x_type") }
    }

    @Test func decodesEndianShiftAndSign() throws {
        let bytes: [UInt8] = [0xF0, 0xFF, 0x12, 0x34]
        let (s16, u16, be16, s12) = (
            try ScanType(parsing: "le:s16/16>>0"), try ScanType(parsing: "le:u16/16>>0"),
            try ScanType(parsing: "be:s16/16>>0"), try ScanType(parsing: "le:s12/16>>4"))
        bytes.withUnsafeBytes { record in
            #expect(s16.decode(record, at: 0) == -16)
            #expect(u16.decode(record, at: 0) == 0xFFF0)
            #expect(be16.decode(record, at: 2) == 0x1234)
            // The datasheet's 12-bit left-justified sample: 0xFFF0 >> 4 = 0xFFF = −1.
            #expect(s12.decode(record, at: 0) == -1)
        }
    }

    @Test func layoutAlignsEachElementAndPadsTheRecord() throws {
        let s16 = try ScanType(parsing: "be:s16/16>>0")
        let s64 = try ScanType(parsing: "le:s64/64>>0")
        // inv_mpu6050 with accel x, y, z and the timestamp: 6 bytes, padded to 8, then 8.
        let layout = ScanLayout([("in_timestamp", 7, s64), ("in_accel_z", 2, s16), ("in_accel_x", 0, s16), ("in_accel_y", 1, s16)])
        #expect(layout.elements.map(\.name) == ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(layout.elements.map(\.offset) == [0, 2, 4, 8])
        #expect(layout.recordSize == 16)
        // Six s16 and a timestamp: 12 bytes, aligned to 16, record 24.
        let six = ScanLayout((0..<6).map { ("c\($0)", $0, s16) } + [("in_timestamp", 7, s64)])
        #expect(six.element("in_timestamp")?.offset == 16)
        #expect(six.recordSize == 24)
        // Three s16 alone: 6 bytes, no timestamp, no padding.
        #expect(ScanLayout((0..<3).map { ("c\($0)", $0, s16) }).recordSize == 6)
    }

    @Test func parsesMountMatrices() throws {
        let matrix = try MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, -1")
        #expect(matrix.apply(SIMD3(1, 2, 3)) == SIMD3(2, 1, -3))
        #expect(try MountMatrix(parsing: "1, 0, 0; 0, 1, 0; 0, 0, 1") == .identity)
        #expect(try MountMatrix(parsing: "1,0,0;0,0.866,0.5;0,-0.5,0.866").apply(SIMD3(0, 0, 1)) == SIMD3(0, 0.5, 0.866))
        for bad in ["", "1, 0, 0; 0, 1, 0", "1, 0; 0, 1; 0, 0", "a, 0, 0; 0, 1, 0; 0, 0, 1", "nan, 0, 0; 0, 1, 0; 0, 0, 1"] {
            #expect(throws: IIOError.self) { try MountMatrix(parsing: bad, path: "in_mount_matrix") }
        }
    }
}
