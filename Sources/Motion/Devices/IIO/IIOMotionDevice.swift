import IIO
import Locking

/// A `MotionDevice` read through Linux's own sensor drivers (IIO): sysfs attributes on the
/// sampler's timer, or the device's buffer with the kernel's timestamps.
///
/// Units (Documentation/ABI/testing/sysfs-bus-iio): the kernel reports acceleration in m/s² as
/// specific force (a device face up reads z = +9.81, Documentation/devicetree/bindings/iio/
/// mount-matrix.txt), rotation rate in rad/s, field in gauss. This device delivers g with Core
/// Motion's sign (face up reads z = −1), rad/s and µT, in the axes of the mount matrix.
final class IIOMotionDevice: MotionDevice {
    /// m/s² per g: standard gravity, the constant IIO drivers' scale tables are built from
    /// (e.g. drivers/iio/imu/inv_mpu6050/inv_mpu_core.c accel_scale: 9.80665 / LSB per g).
    static let standardGravity = 9.80665
    /// µT per gauss.
    static let microteslaPerGauss = 100.0

    let selection: IIOSelection
    let name: String
    let hasMagnetometer: Bool
    let hasGyroscope: Bool
    let maximumTimerRate = 100.0
    /// The buffer's sample rate when accelerometer and gyroscope share one buffered device.
    let fifoRate: Double?

    private struct State {
        var sensors: IIOMotionSensors
        var buffer: IIOBuffer?
        /// Seconds to add to a buffer timestamp for CLOCK_MONOTONIC.
        var clockOffset = 0.0
        /// Where each axis sits in the buffer's records: accelerometer x, y, z, gyroscope x, y, z.
        var elementIndices: [Int] = []
    }
    private let state: Locked<State>

    /// Finds the sensors `selection` names.
    /// - Throws: ``MotionError/deviceNotFound(_:)`` when there is no IIO accelerometer.
    init(selection: IIOSelection) throws(MotionError) {
        let (devices, problems) = IIODiscovery.devices(root: selection.root)
        guard let sensors = IIOMotionSensors.choose(from: devices, name: selection.name) else {
            let found = devices.isEmpty ? "no IIO motion device" : "only " + devices.map(\.summary).joined(separator: "; ")
            let problemText = problems.isEmpty ? "" : " (unreadable: \(problems.map(\.description).joined(separator: "; ")))"
            throw .deviceNotFound(
                "no IIO accelerometer\(selection.name.map { " named \($0)" } ?? "") under \(selection.root): \(found)\(problemText); "
                    + "check that the kernel driver is loaded (lsmod | grep -e iio -e hid_sensor), or use --source i2c")
        }
        self.selection = selection
        self.name = sensors.summary + " via IIO"
        self.hasMagnetometer = sensors.magnetometer != nil
        self.hasGyroscope = sensors.gyroscope != nil
        let accelerometer = sensors.accelerometer
        let shared = sensors.gyroscope.map { $0.id == accelerometer.id } ?? true
        var rate: Double?
        if selection.reading == .automatic, accelerometer.hasBuffer, shared {
            do throws(IIOError) {
                rate = try accelerometer.group(.accelerometer)?.samplingFrequency()
            } catch {
                // An implausible value is the tree's fault and said; a failed read means polling.
                if error.kind == .badValue { throw .iio(error) }
                rate = nil
            }
        }
        self.fifoRate = rate
        self.state = Locked(State(sensors: sensors))
    }

    func initialize() throws(MotionError) {
        let sensors = try Self.mapping { () throws(IIOError) in try rediscover() }
        state.withLock { state in
            state.buffer?.stop()
            state.buffer = nil
            state.sensors = sensors
        }
    }

    /// The same sensors again (after a removal they may come back as another `iio:deviceN`).
    private func rediscover() throws(IIOError) -> IIOMotionSensors {
        let current = state.withLock { $0.sensors }
        let (devices, problems) = IIODiscovery.devices(root: selection.root)
        guard let found = IIOMotionSensors.choose(from: devices, name: selection.name ?? current.accelerometer.name),
              (found.gyroscope == nil) == (current.gyroscope == nil), (found.magnetometer == nil) == (current.magnetometer == nil)
        else {
            if let problem = problems.first { throw problem }
            throw IIOError(
                .deviceRemoved, path: current.accelerometer.directory,
                detail: "\(current.summary) is no longer listed under \(selection.root)",
                hint: "reading resumes when the driver registers it again")
        }
        return found
    }

    func read(at timestamp: Double) throws(MotionError) -> MotionSample {
        try Self.mapping { () throws(IIOError) in
            let sensors = state.withLock { state in
                // Drivers refuse direct reads while their buffer runs (iio_device_claim_direct_mode: EBUSY).
                state.buffer?.stop()
                state.buffer = nil
                return state.sensors
            }
            guard let accelerometer = sensors.accelerometer.group(.accelerometer) else {
                throw IIOError(.noDevice, path: sensors.accelerometer.directory, detail: "no accelerometer channels")
            }
            let acceleration = try accelerometer.read()
            let rotation = try sensors.gyroscope?.group(.gyroscope)?.read() ?? .zero
            let field = try sensors.magnetometer?.group(.magnetometer)?.read()
            return Self.sample(acceleration: acceleration, rotation: rotation, field: field, at: timestamp)
        }
    }

    /// Kernel units (m/s² specific force, rad/s, gauss) → ours (g Core Motion sign, rad/s, µT).
    static func sample(acceleration: SIMD3<Double>, rotation: SIMD3<Double>, field: SIMD3<Double>?, at timestamp: Double) -> MotionSample {
        MotionSample(
            timestamp: timestamp, acceleration: -acceleration / standardGravity, rotationRate: rotation,
            magneticField: field.map { $0 * microteslaPerGauss })
    }

    /// False when a scale, offset or mount matrix changed (someone wrote `in_accel_scale`):
    /// the sampler then initializes again, which reads them anew.
    func isStillConfigured() throws(MotionError) -> Bool {
        try Self.mapping { () throws(IIOError) in
            let sensors = state.withLock { $0.sensors }
            for device in sensors.devices {
                guard SysfsFiles.exists(device.directory), let now = try IIODevice.read(directory: device.directory) else {
                    throw IIOError(.deviceRemoved, path: device.directory, detail: "\(device.summary) disappeared",
                                   hint: "reading resumes when the driver registers it again")
                }
                if now.groups != device.groups { return false }
            }
            return true
        }
    }

    func startFIFO() throws(MotionError) {
        try Self.mapping { () throws(IIOError) in
            let sensors = state.withLock { state in
                state.buffer?.stop()
                state.buffer = nil
                return state.sensors
            }
            let device = sensors.accelerometer
            let groups = [device.group(.accelerometer), device.group(.gyroscope)].compactMap { $0 }
            let names = groups.flatMap(\.scanElementNames)
            let rate = fifoRate ?? 100
            // Room for a second of samples: far more than one read interval (the sampler reads
            // every ~20 ms), so a late read does not overflow the kernel's buffer.
            let buffer = try IIOBuffer.start(device: device, channels: names, deviceDirectory: selection.deviceDirectory, length: Int(min(max(rate, 16), 10_000)))
            let indices = names.map { name in buffer.layout.elements.firstIndex { $0.name == name } ?? 0 }
            state.withLock { state in
                state.buffer = buffer
                state.elementIndices = indices
                state.clockOffset = IIOBuffer.monotonicOffset(clock: buffer.timestampClock)
            }
        }
    }

    func readFIFO(at time: Double) throws(MotionError) -> (samples: [MotionSample], lost: Int) {
        try Self.mapping { () throws(IIOError) in
            let field = try state.withLock { $0.sensors.magnetometer }?.group(.magnetometer)?.read()
            return try state.withLock { state throws(IIOError) in
                guard var buffer = state.buffer else { return ([], 0) }
                let records = try buffer.read()
                state.buffer = buffer
                // A kernel buffer of a removed device answers ENODEV; a quiet one is checked here.
                if records.isEmpty, !SysfsFiles.exists(state.sensors.accelerometer.directory) {
                    throw IIOError(.deviceRemoved, path: state.sensors.accelerometer.directory,
                                   detail: "\(state.sensors.accelerometer.summary) disappeared", hint: "reading resumes when it returns")
                }
                let device = state.sensors.accelerometer
                guard let accelerometer = device.group(.accelerometer) else { return ([], 0) }
                let gyroscope = device.group(.gyroscope)
                let period = 1 / (fifoRate ?? 100)
                let indices = state.elementIndices
                let offset = state.clockOffset
                let samples = records.enumerated().map { number, record in
                    func axes(_ start: Int) -> SIMD3<Double> {
                        SIMD3(Double(record.values[indices[start]]), Double(record.values[indices[start + 1]]), Double(record.values[indices[start + 2]]))
                    }
                    // Without in_timestamp, the records are spaced at the sample period ending now.
                    let timestamp = record.timestamp.map { Double($0) * 1e-9 + offset } ?? time - Double(records.count - 1 - number) * period
                    return Self.sample(
                        acceleration: accelerometer.value(raw: axes(0)),
                        rotation: gyroscope.map { $0.value(raw: axes(3)) } ?? .zero, field: field, at: timestamp)
                }
                return (samples, 0)
            }
        }
    }

    func stopFIFO() {
        state.withLock { state in
            state.buffer?.stop()
            state.buffer = nil
        }
    }

    static func mapping<T>(_ body: () throws(IIOError) -> T) throws(MotionError) -> T {
        do {
            return try body()
        } catch {
            throw .iio(error)
        }
    }
}
