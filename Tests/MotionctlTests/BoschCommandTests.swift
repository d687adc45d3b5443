import Foundation
import Testing

/// `--imu bmi270` through the built `motionctl`: the probe names the BMI270 (its BMM150 sits on
/// its auxiliary interface, not on the bus) and a BMM150 added on the bus, a raw stream at rest
/// reads gravity and the auxiliary BMM150's field, through the timer and the FIFO, and device
/// motion comes out with it.
struct BoschCommandTests {
    @Test func probeListsTheBMI270AndABMM150OnTheBus() throws {
        let alone = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "bmi270"])
        #expect(alone.status == 0, "\(alone.error)")
        let found: [String] = alone.output.split(separator: "\n").dropFirst().map(String.init)
        #expect(found == ["  0x68  BMI270", "  0x76  BMP280"])
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "bmi270", "--magnetometer", "bmm150"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(Array(lines.dropFirst()) == ["  0x10  BMM150", "  0x68  BMI270", "  0x76  BMP280"])
    }

    /// 100 raw samples on the `rest` scenario, through the timer and through the FIFO: 1 g ± 2 %
    /// pointing down, and a field of the Earth's size (25–65 µT) from the BMM150.
    @Test(arguments: [[String](), ["--fifo"]])
    func streamAtRestReadsOneGAndTheField(fifo: [String]) throws {
        let rows = try streamed(["--imu", "bmi270", "--scenario", "rest", "--count", "100"] + fifo,
                                columns: ["acc_x_g", "acc_y_g", "acc_z_g", "mag_x_uT", "mag_y_uT", "mag_z_uT"])
        #expect(rows.count == 100)
        for row in rows.dropFirst(5) {
            let magnitude = row[0..<3].map { $0 * $0 }.reduce(0, +).squareRoot()
            let field = row[3..<6].map { $0 * $0 }.reduce(0, +).squareRoot()
            #expect(abs(magnitude - 1) <= 0.02 && row[2] < -0.98, "\(row)")
            #expect((25...65).contains(field), "\(row)")
        }
    }

    @Test func deviceMotionStreams() throws {
        let rows = try streamed(["--imu", "bmi270", "--scenario", "rest", "--device-motion", "--count", "50"],
                                columns: ["gravity_z_g", "mag_x_uT", "mag_y_uT", "mag_z_uT"])
        #expect(rows.count == 50)
        for row in rows { #expect(row[0] < -0.98 && row[1...].allSatisfy(\.isFinite), "\(row)") }
    }
}
