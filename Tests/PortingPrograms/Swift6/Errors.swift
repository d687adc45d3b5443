import Foundation
import Motion

/// What a ported program prints for an error: `error.localizedDescription` — which said "The
/// operation could not be completed. (Motion.MotionError error 9.)" — now what happened and what
/// to do; and Core Motion's code to compare with (`(error as NSError).code`, `error.code`).
@Sendable func errors(runs: Int) -> Bool {
    let samples: [MotionError] = [
        .deviceNotFound("no supported IMU at 0x6A on /dev/i2c-1; check the wiring, then run `motionctl probe --bus /dev/i2c-1`"),
        .bus(I2CError(.busError, bus: "/dev/i2c-1", errno: 5, detail: "read of 12 bytes from 0x6A failed")),
        .bus(I2CError(.permissionDenied, bus: "/dev/i2c-1", errno: 13, detail: "open failed", hint: "add yourself to the i2c group")),
        .deviceReset("LSM6DSOX at 0x6A lost its configuration"),
        .deviceUnavailable(I2CError(.noAcknowledge, bus: "/dev/i2c-1", detail: "0x6A did not acknowledge")),
        .sensor("LSM6DSOX self-test out of range"),
        .calibrationNeeded("the magnetometer calibration in ~/.config/swift-motion/x.json is damaged: clear it (`motionctl calibration clear`) and calibrate again"),
        .trueNorthNotAvailable,
        .deviceRequiresMovement,
        .invalidInterval(-1),
        .sensorNotAvailable("magnetometer"),
        .iio(IIOError(.io, path: "/dev/iio:device0", errno: 5, detail: "read failed")),
    ]
    var succeeded = true
    for error in samples {
        let bridged = error as NSError
        let text = error.localizedDescription
        print("errors: \(error.code) \(bridged.domain) \(bridged.code): \(text)")
        if text.contains("could not be completed") || bridged.code != error.code.rawValue { succeeded = false }
    }
    // How a handler matches them by name.
    let handled: MotionError? = .trueNorthNotAvailable
    switch handled {
    case .trueNorthNotAvailable?: print("errors: matched trueNorthNotAvailable by name")
    case .deviceRequiresMovement?: print("errors: matched deviceRequiresMovement by name")
    default: succeeded = false
    }
    if let error = handled, error.code == .trueNorthNotAvailable, (error as NSError).code == 102 {
        print("errors: Core Motion's code 102 (CMErrorTrueNorthNotAvailable) compares equal")
    }
    return succeeded
}
