/// A chip that counts steps itself (the BMI270's step-counter feature): a driver-level feature,
/// found by a cast on the ``IMUDriver`` (`driver as? any OnChipStepCounter`).
package protocol OnChipStepCounter: AnyObject, Sendable {
    /// Starts the chip's step counter, from 0. The accelerometer must be running: call it after
    /// ``ChipDriver/configure(_:)``, and again after every configure (its reset stops the counter).
    func enableStepCounter() throws(SensorError)
    /// The steps the chip has counted since ``enableStepCounter()``.
    func stepCount() throws(SensorError) -> Int
}
