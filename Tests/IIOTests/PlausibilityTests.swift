import Foundation
import IIO
import IIOFake
import Testing

/// IIO attributes are checked for plausibility as board files are: a value no motion sensor can
/// have is `badValue` naming the file and the bound, never readings that are all zero, NaN or
/// turned about a wrong axis.
@Suite struct IIOPlausibilityTests {
    /// An attribute of a fake MPU-6050, a value for it, and whether it is plausible.
    struct Case: Sendable, CustomTestStringConvertible {
        var attribute: String
        var value: String
        var plausible: Bool
        var testDescription: String { "\(attribute) = \(value)" }
    }

    static let cases: [Case] = [
        Case(attribute: "in_accel_scale", value: "1e308", plausible: false),
        Case(attribute: "in_accel_scale", value: "0", plausible: false),
        Case(attribute: "in_accel_scale", value: "-0.000598", plausible: false),
        Case(attribute: "in_accel_scale", value: "1e-300", plausible: false),
        Case(attribute: "in_accel_scale", value: "0.004788", plausible: true),          // ±16 g, 16 bit
        Case(attribute: "in_anglvel_scale", value: "1e308", plausible: false),
        Case(attribute: "in_anglvel_scale", value: "0.001064724", plausible: true),
        Case(attribute: "in_accel_offset", value: "1e308", plausible: false),
        Case(attribute: "in_accel_offset", value: "-20", plausible: true),
        Case(attribute: "in_mount_matrix", value: "0, 0, 0; 0, 0, 0; 0, 0, 0", plausible: false),
        Case(attribute: "in_mount_matrix", value: "1e300, 0, 0; 0, 1e300, 0; 0, 0, 1e300", plausible: false),
        Case(attribute: "in_mount_matrix", value: "1, 0.5, 0; 0, 1, 0; 0, 0, 1", plausible: false),  // a shear
        Case(attribute: "in_mount_matrix", value: "2, 0, 0; 0, 2, 0; 0, 0, 2", plausible: false),
        Case(attribute: "in_mount_matrix", value: "0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1", plausible: true),  // 45°, rounded
        Case(attribute: "in_mount_matrix", value: "0, 1, 0; 1, 0, 0; 0, 0, -1", plausible: true),  // mirrored: a left-handed chip
        Case(attribute: "sampling_frequency", value: "1e308", plausible: false),
        Case(attribute: "sampling_frequency", value: "-50", plausible: false),
        Case(attribute: "sampling_frequency", value: "1000", plausible: true),
    ]

    @Test(arguments: cases)
    func implausibleAttributesAreBadValuesNamingTheFile(_ check: Case) throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 16384), gyro: (0, 0, 0)), as: "iio:device0")
        try tree.set(check.attribute, of: "iio:device0", to: check.value)
        let (devices, problems) = IIODiscovery.devices(root: tree.sysfs)
        var failure = problems.first
        if failure == nil, let group = devices.first?.group(.accelerometer) {
            do { _ = try group.samplingFrequency() } catch { failure = error }
        }
        if check.plausible {
            #expect(failure == nil, "\(String(describing: failure))")
        } else {
            let error = try #require(failure, "\(check.attribute) = \(check.value) was accepted")
            #expect(error.kind == .badValue)
            #expect(error.path.hasSuffix("iio:device0/\(check.attribute)"), "\(error)")
            #expect(error.detail.contains("within") || error.detail.contains("rotation"), "the bound is named: \(error)")
        }
    }

    /// An "attribute" longer than sysfs can hand out (a regular file in a copied tree, a 3 GB
    /// sparse one) is refused after one page, never read whole.
    @Test func anOversizedAttributeIsRefused() throws {
        let tree = try FakeIIOTree()
        try tree.add(.mpu6050(accel: (0, 0, 0), gyro: (0, 0, 0)), as: "iio:device0")
        let path = "\(tree.sysfs)/iio:device0/in_accel_scale"
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        try #require(descriptor >= 0 && ftruncate(descriptor, 3 << 30) == 0)
        close(descriptor)
        let (_, problems) = IIODiscovery.devices(root: tree.sysfs)
        #expect(problems.map(\.kind) == [.badValue])
        #expect(problems.first?.detail.contains("longer than 4096 bytes") == true, "\(problems)")
    }
}
