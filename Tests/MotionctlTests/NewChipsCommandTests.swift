import Foundation
import Testing

/// The ADXL345 and the MMC5983MA on the simulated board through the built `motionctl`.
struct NewChipsCommandTests {
    @Test func probeListsTheADXL345AndItsGY85Magnetometer() throws {
        let result = try BoardsCommandTests.run(["probe", "--simulated", "--imu", "adxl345"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  0x53  ADXL345"), "\(result.output)")
        #expect(lines.contains("  0x1E  HMC5883L"), "\(result.output)")
    }

    /// At rest every sample's acceleration is 1 g ± 2 %, and the rotation-rate columns are 0.
    @Test func streamAtRestReadsOneGAndNoRotation() throws {
        for row in try restingStream(imu: "adxl345") {
            #expect(abs(row.acceleration - 1) <= 0.02 && row.rotation == 0, "\(row)")
        }
    }

    /// No gyroscope: `stream --device-motion` refuses at once, naming the chip and the fix.
    @Test func deviceMotionIsRefusedWithTheFix() throws {
        let result = try BoardsCommandTests.run(["stream", "--simulated", "--imu", "adxl345", "--device-motion", "--count", "5"])
        #expect(result.status != 0)
        #expect(result.error.contains("ADXL345 at 0x53") && result.error.contains("no gyroscope") && result.error.contains("without --device-motion"),
                "\(result.error)")
        #expect(result.output.isEmpty, "\(result.output)")
    }

    @Test func theMMC5983MAIsProbedAndGivesDeviceMotionItsField() throws {
        let probe = try BoardsCommandTests.run(["probe", "--simulated", "--magnetometer", "mmc5983ma"])
        #expect(probe.status == 0, "\(probe.error)")
        #expect(probe.output.split(separator: "\n").contains("  0x30  MMC5983MA"), "\(probe.output)")
        let stream = try BoardsCommandTests.run(["stream", "--simulated", "--magnetometer", "mmc5983ma", "--device-motion", "--count", "20"])
        #expect(stream.status == 0, "\(stream.error)")
        #expect(stream.output.split(separator: "\n").count == 21, "\(stream.output)")
    }
}
