import Locking
import Logging

/// What the layers below the API share with it: where the library logs and the update intervals it
/// accepts. `MotionManager.logger`, `.minimumUpdateInterval` and `.maximumUpdateInterval` are these,
/// so that the engine, the devices and the calibration never reach up into the API layer.
enum Library {
    /// Where the library logs: nowhere until the application sets `MotionManager.logger`.
    static var logger: Logger {
        get { configuredLogger.withLock { $0 } }
        set { configuredLogger.withLock { $0 = newValue } }
    }
    private static let configuredLogger = Locked(Logger(label: "swift-motion", factory: { _ in SwiftLogNoOpLogHandler() }))

    /// The fastest update the timer path delivers (100 Hz); shorter intervals come from the FIFO.
    static let minimumUpdateInterval = 0.01
    /// The longest update interval accepted: one day (the sampler's timer cannot represent longer).
    static let maximumUpdateInterval = 86_400.0
}
