import Dispatch
import Foundation
import Fusion
import Locking
import Motion
import Timing

/// Publishes a ``MotionManager``'s device motion, orientation and state to an MQTT broker
/// (topics and QoS: ``BrokerConfiguration``), with its steps and activity and, given an
/// ``Altimeter``, the barometer's pressure, altitude and temperature.
///
/// ```swift
/// let manager = MotionManager()
/// var broker = try BrokerConfiguration(url: "mqtt://localhost")
/// broker.rate = 10
/// let publisher = try MotionPublisher(manager: manager, configuration: broker)
/// try publisher.start()          // connects (or throws why it cannot), then publishes
/// …
/// publisher.stop()               // `offline`, a clean disconnect
/// ```
///
/// The publisher drives the manager's device-motion updates (at ``BrokerConfiguration/rate``) and
/// its orientation notifications: give it a manager of its own. Managers of the same device share
/// one sampler, so a second manager for your own updates costs no second bus reader.
///
/// Nothing here blocks the sampler: the device-motion handler only numbers the sample and puts it
/// in a bounded queue; a thread of the publisher's own drains it into libmosquitto, whose network
/// thread writes to the broker and reconnects with backoff when the connection breaks. A sample
/// that cannot be published is counted with its reason (``PublishCounters``), never waited for.
/// Retained state (availability, device, orientation, moving, counters, discovery) is published
/// again on every (re)connection.
public final class MotionPublisher: Sendable {
    public let configuration: BrokerConfiguration
    private let manager: MotionManager
    private let boardName: String?
    /// The barometer's updates go to `altitude`; nil: no such topic.
    private let altimeter: Altimeter?
    /// Whether steps and activity on the manager's device go to `steps`.
    private let publishesSteps: Bool
    /// The pedometer and activity manager while publishing (made by `start`, let go by `stop`: the
    /// sampler runs the step detector only meanwhile).
    private let stepSources = Locked<(pedometer: Pedometer, activities: MotionActivityManager)?>(nil)

    private struct Pending {
        var samples: [(seq: Int, motion: DeviceMotion)] = []
        var counters = PublishCounters()
        var orientation: (value: DeviceOrientation, timestamp: Double?)?
        var orientationChanged = false
        /// The newest sample handed over (its timestamp), for tests in virtual time.
        var latestTimestamp: Double?
        /// Set by a (re)connection: every retained state goes out again.
        var connectedAgain = false
        var started = false
        /// ``cancelStart()`` came first: start() publishes nothing.
        var cancelled = false
        /// start() passed the point where ``cancelStart()`` could still stop it.
        var publishing = false
        var stopping = false
        /// The first discovery configuration libmosquitto refused.
        var discoveryFailure: PublishError?
        /// The altimeter's latest update, absolute altitude and die temperature; set on a new update.
        var altitude: AltitudeData?
        var absoluteAltitude: AbsoluteAltitudeData?
        var temperature: Double?
        var altitudeChanged = false
        /// The pedometer's latest count.
        var steps: PedometerData?
    }
    private let pending = Locked(Pending())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let handlerQueue = DispatchQueue(label: "swift-motion.publish.handler")
    private let connection = Locked<MosquittoConnection?>(nil)
    private let observer = Locked<NSObjectProtocol?>(nil)

    /// A publisher of `manager`'s device motion; `boardName` (e.g. "Raspberry Pi 4 + Sense HAT")
    /// goes into the retained device message. With `altimeter` (the same board's), its pressure,
    /// altitude and temperature go to `altitude` once a second; with `steps`, the step count,
    /// cadence, floors and activity on the manager's device go to `steps` when they change (the
    /// sampler then runs at least at the step detector's 50 Hz). Checks the configuration
    /// (``BrokerConfiguration/validate()``).
    public init(
        manager: MotionManager, configuration: BrokerConfiguration, boardName: String? = nil, altimeter: Altimeter? = nil, steps: Bool = true
    ) throws(PublishError) {
        try configuration.validate()
        self.manager = manager
        self.configuration = configuration
        self.boardName = boardName
        self.altimeter = altimeter?.barometerName == nil ? nil : altimeter
        publishesSteps = steps
    }

    deinit { stop() }

    /// What has been published and dropped so far.
    public var counters: PublishCounters {
        var counters = pending.withLock { $0.counters }
        counters.isConnected = connection.withLock { $0?.isConnected } ?? false
        counters.connections = connection.withLock { $0?.connections } ?? 0
        return counters
    }

    /// Why a Home Assistant discovery configuration could not be sent (libmosquitto refused it,
    /// e.g. a topic over MQTT's 65535 bytes); nil while every one went out or waits for the
    /// next connection. `motionctl publish` stops with it as its error.
    package var discoveryFailure: PublishError? { pending.withLock { $0.discoveryFailure } }

    /// The timestamp of the newest sample handed to the publisher (tests in virtual time wait for it).
    var latestSampleTimestamp: Double? { pending.withLock { $0.latestTimestamp } }

    /// Connects to the broker, waiting at most ``BrokerConfiguration/connectTimeout`` seconds for
    /// it to accept, then starts publishing. Throws why it cannot connect (unreachable, refused,
    /// not authorized, TLS); later breaks are mended by reconnecting, with backoff.
    public func start() throws(PublishError) {
        guard pending.withLock({ state in
            defer { state.started = true }
            return !state.started
        }) else { throw .alreadyStarted }
        let client: MosquittoConnection
        do throws(PublishError) {
            client = try MosquittoConnection(
                configuration: configuration, clientID: configuration.effectiveClientID,
                will: (configuration.topic(.availability), "offline")
            ) { [weak self] event in self?.handle(event) }
            try client.connect(keepAlive: configuration.keepAlive, timeout: configuration.connectTimeout)
        } catch {
            pending.withLock { $0.started = false }   // a failed start may be tried again
            throw error
        }
        // Connected, nothing published yet: from here on, publishing begins unless cancelStart() came first.
        guard pending.withLock({ state in
            state.publishing = !state.cancelled
            return state.publishing
        }) else {
            _ = client.disconnect()
            throw .cancelled
        }
        connection.withLock { $0 = client }

        let thread = Thread { [self] in publishLoop(client) }
        thread.name = "swift-motion.publish"
        thread.start()

        let token = NotificationCenter.default.addObserver(forName: .deviceOrientationDidChange, object: manager, queue: nil) { [weak self] note in
            guard let self, let new = note.userInfo?[MotionManager.newOrientationKey] as? DeviceOrientation else { return }
            let timestamp = note.userInfo?[MotionManager.orientationTimestampKey] as? Double
            pending.withLock {
                $0.orientation = (new, timestamp)
                $0.orientationChanged = true
            }
            wake.signal()
        }
        observer.withLock { $0 = token }
        manager.beginGeneratingDeviceOrientationNotifications()
        manager.deviceMotionUpdateInterval = 1 / configuration.rate
        let frame: AttitudeReferenceFrame = manager.isMagnetometerAvailable ? .xMagneticNorthZVertical : .xArbitraryZVertical
        manager.startDeviceMotionUpdates(using: frame, to: handlerQueue) { [weak self] motion, _ in
            guard let self, let motion else { return }
            enqueue(motion)
        }
        startBarometerAndSteps()
    }

    /// Ends a ``start()`` that is still waiting for the broker (from another thread: Ctrl-C, a
    /// deadline): true when nothing has been published and nothing will be (start() throws
    /// ``PublishError/cancelled``); false when publishing has already begun: wait for start() to
    /// return, then ``stop()``.
    public func cancelStart() -> Bool {
        pending.withLock { state in
            if !state.publishing { state.cancelled = true }
            return state.cancelled
        }
    }

    /// The altimeter's updates and the pedometer's, each kept as the latest (state, not a stream).
    private func startBarometerAndSteps() {
        altimeter?.startRelativeAltitudeUpdates(to: handlerQueue) { [weak self] data, _ in
            guard let self, let data else { return }
            pending.withLock {
                $0.altitude = data
                $0.altitudeChanged = true
            }
            wake.signal()
        }
        altimeter?.startAbsoluteAltitudeUpdates(to: handlerQueue) { [weak self] data, _ in
            guard let data else { return }
            self?.pending.withLock { $0.absoluteAltitude = data }
        }
        altimeter?.startReadings(to: handlerQueue) { [weak self] reading, _ in
            guard let reading, reading.temperature.isFinite else { return }
            self?.pending.withLock { $0.temperature = reading.temperature }
        }
        guard publishesSteps else { return }
        let pedometer = Pedometer(sharing: manager, altimeter: altimeter)
        stepSources.withLock { $0 = (pedometer, MotionActivityManager(sharing: manager)) }
        pedometer.startUpdates(from: Date()) { [weak self] data, _ in
            guard let self, let data else { return }
            pending.withLock { $0.steps = data }
            wake.signal()
        }
    }

    /// Removes a board's Home Assistant discovery: an empty retained message on each of the
    /// configuration topics this configuration's publisher uses (the broker forgets the retained
    /// configuration, Home Assistant removes the entity). Connects, waits at most
    /// ``BrokerConfiguration/connectTimeout`` seconds for the broker to acknowledge them (QoS 1),
    /// disconnects; returns the topics.
    package static func removeHomeAssistantDiscovery(_ configuration: BrokerConfiguration) throws(PublishError) -> [String] {
        try configuration.validate()
        let topics = HomeAssistantDiscovery.configurations(configuration, board: "", model: "", barometer: true, steps: true).map(\.topic)
        let client = try MosquittoConnection(configuration: configuration, clientID: configuration.effectiveClientID, will: nil) { _ in }
        try client.connect(keepAlive: configuration.keepAlive, timeout: configuration.connectTimeout)
        defer { client.disconnect() }
        for topic in topics {
            switch client.publish(topic: topic, payload: "", qos: 1, retain: true) {
            case .handed: continue
            case .notConnected:
                throw .timeout(host: client.host, port: client.port, seconds: configuration.connectTimeout, detail: "the connection broke")
            case .failed(let reason):
                throw HomeAssistantDiscovery.unsendable(topic: topic, reason: reason)
            }
        }
        let deadline = SystemClock.monotonicSeconds() + configuration.connectTimeout
        while client.unwrittenMessages > 0, SystemClock.monotonicSeconds() < deadline { usleep(5_000) }
        guard client.unwrittenMessages == 0 else {
            throw .timeout(
                host: client.host, port: client.port, seconds: configuration.connectTimeout,
                detail: "\(client.unwrittenMessages) of \(topics.count) removals not acknowledged")
        }
        return topics
    }

    /// Stops publishing: the device-motion updates stop, what is queued is published, `offline`
    /// goes out (retained) and the connection ends cleanly. Waits for the publishing thread
    /// (bounded: it never waits for the broker). Calling it again does nothing.
    public func stop() {
        let wasRunning = pending.withLock { state in
            defer { state.stopping = true }
            return state.publishing && !state.stopping
        }
        guard wasRunning else { return }
        manager.stopDeviceMotionUpdates()
        altimeter?.stopRelativeAltitudeUpdates()
        altimeter?.stopAbsoluteAltitudeUpdates()
        altimeter?.stopReadings()
        if let pedometer = stepSources.withLock({ $0?.pedometer }) {
            pedometer.stopUpdates()
            pedometer.waitUntilHandlersFinish()
        }
        handlerQueue.sync {}
        manager.endGeneratingDeviceOrientationNotifications()
        if let token = observer.withLock({ $0 }) { NotificationCenter.default.removeObserver(token) }
        wake.signal()
        finished.wait()
        // Let the pedometer go outside the lock (its release stops the sampler's step stage).
        let released = stepSources.withLock { sources in
            defer { sources = nil }
            return sources
        }
        withExtendedLifetime(released) {}
    }

    // MARK: The handler (on handlerQueue): number, enqueue, never wait.

    private func enqueue(_ motion: DeviceMotion) {
        pending.withLock { state in
            guard !state.stopping else { return }
            state.counters.samples += 1
            state.latestTimestamp = motion.timestamp
            if state.samples.count >= configuration.queueCapacity {
                state.counters.dropped[.queueFull, default: 0] += 1
            } else {
                state.samples.append((state.counters.samples, motion))
            }
        }
        wake.signal()
    }

    // MARK: libmosquitto's network thread

    private func handle(_ event: MosquittoConnection.Event) {
        switch event {
        case .connected(let code) where code == 0:
            pending.withLock { $0.connectedAgain = true }
            wake.signal()
        case .disconnected(_, let lost) where lost > 0:
            pending.withLock { $0.counters.dropped[.connectionLost, default: 0] += lost }
        case .streamWritten:
            pending.withLock { $0.counters.published += 1 }
        default:
            break
        }
    }

    // MARK: The publishing thread

    private func publishLoop(_ client: MosquittoConnection) {
        let chipAttitude = manager.isChipAttitudeAvailable
        var moving = MovingDetector()
        var nextCounters = SystemClock.monotonicSeconds()
        var lastTimestamp: Double?
        var lastStepsPayload: String?
        func state(_ topic: PublishTopic, _ payload: String) {
            // State that does not go out now goes out again with the next connection.
            _ = client.publish(topic: configuration.topic(topic), payload: payload, qos: topic.qos, retain: topic.retained)
        }
        func publishCounters() {
            state(.counters, Payloads.counters(sampler: manager.counters, publisher: counters))
        }
        while true {
            let wait = max(0, nextCounters - SystemClock.monotonicSeconds())
            _ = wake.wait(timeout: .now() + wait)
            let (batch, orientation, orientationChanged, connectedAgain, stopping) = pending.withLock { state in
                defer {
                    state.samples.removeAll(keepingCapacity: true)
                    state.orientationChanged = false
                    state.connectedAgain = false
                }
                return (state.samples, state.orientation, state.orientationChanged, state.connectedAgain, state.stopping)
            }
            let (altitude, altitudeChanged) = pending.withLock { state in
                defer { state.altitudeChanged = false }
                return (state.altitude.map { (data: $0, absolute: state.absoluteAltitude, temperature: state.temperature) }, state.altitudeChanged)
            }
            if connectedAgain {
                state(.availability, "online")
                state(.device, Payloads.device(manager, board: boardName, rate: configuration.rate))
                state(.moving, Payloads.moving(moving.isMoving, timestamp: lastTimestamp))
                if configuration.homeAssistantDiscovery {
                    for (topic, payload) in HomeAssistantDiscovery.configurations(
                        configuration, board: boardName ?? manager.deviceName, model: manager.deviceName,
                        barometer: altimeter != nil, steps: publishesSteps) {
                        // Not connected: it goes out again with the next connection; refused: an error.
                        if case .failed(let reason) = client.publish(topic: topic, payload: payload, qos: 1, retain: true) {
                            pending.withLock { state in
                                if state.discoveryFailure == nil { state.discoveryFailure = HomeAssistantDiscovery.unsendable(topic: topic, reason: reason) }
                            }
                        }
                    }
                }
            }
            if connectedAgain || orientationChanged, let orientation {
                state(.orientation, Payloads.orientation(orientation.value, timestamp: orientation.timestamp))
            }
            if connectedAgain || altitudeChanged, let altitude {
                state(.altitude, Payloads.altitude(altitude.data, absolute: altitude.absolute, temperature: altitude.temperature))
            }
            if publishesSteps {
                let steps = Payloads.steps(pending.withLock { $0.steps }, activity: stepSources.withLock { $0?.activities }?.currentActivity)
                if connectedAgain || steps != lastStepsPayload {
                    state(.steps, steps)
                    lastStepsPayload = steps
                }
            }
            var drops: [PublishDropReason: Int] = [:]
            for (seq, motion) in batch {
                lastTimestamp = motion.timestamp
                if moving.update(motion) { state(.moving, Payloads.moving(moving.isMoving, timestamp: motion.timestamp)) }
                if !client.isConnected {
                    drops[.disconnected, default: 0] += 1
                } else if client.unwrittenStreamMessages >= configuration.inFlightLimit {
                    drops[.brokerSlow, default: 0] += 1
                } else {
                    let payload = Payloads.motion(motion, seq: seq, chipAttitude: chipAttitude)
                    switch client.publish(topic: configuration.topic(.motion), payload: payload, qos: 0, retain: false, stream: true) {
                    case .handed: break
                    case .notConnected: drops[.disconnected, default: 0] += 1
                    case .failed: drops[.rejected, default: 0] += 1
                    }
                }
            }
            if !drops.isEmpty {
                pending.withLock { state in
                    for (reason, count) in drops { state.counters.dropped[reason, default: 0] += count }
                }
            }
            if connectedAgain || SystemClock.monotonicSeconds() >= nextCounters {
                publishCounters()
                nextCounters = SystemClock.monotonicSeconds() + configuration.countersInterval
            }
            if stopping {
                // Samples that arrived after the last drain (none: the handler stopped first).
                pending.withLock { state in
                    if !state.samples.isEmpty { state.counters.dropped[.stopped, default: 0] += state.samples.count }
                    state.samples.removeAll()
                }
                finish(client)
                return
            }
        }
    }

    /// The last counters, `offline`, and a clean DISCONNECT (the broker then keeps `offline`
    /// rather than sending the will); waits at most a second for them to be written.
    private func finish(_ client: MosquittoConnection) {
        _ = client.publish(
            topic: configuration.topic(.counters), payload: Payloads.counters(sampler: manager.counters, publisher: counters), qos: 1,
            retain: true)
        _ = client.publish(topic: configuration.topic(.availability), payload: "offline", qos: 1, retain: true)
        let deadline = SystemClock.monotonicSeconds() + 1
        while client.isConnected, client.unwrittenMessages > 0, SystemClock.monotonicSeconds() < deadline { usleep(5_000) }
        client.disconnect()
        finished.signal()
    }
}

/// "Moving": the user acceleration above 0.03 g or the rotation rate above 0.05 rad/s in a sample,
/// and still again after 2 s without such a sample. Our thresholds (no datasheet's): above the
/// noise of a board lying still, below a hand's slowest tilt. Core Motion has no such property.
struct MovingDetector {
    static let accelerationThreshold = 0.03
    static let rotationThreshold = 0.05
    static let stillAfter = 2.0

    private(set) var isMoving = false
    private var lastMotion: Double?

    /// Takes a sample; true when ``isMoving`` changed.
    mutating func update(_ motion: DeviceMotion) -> Bool {
        let acceleration = motion.userAcceleration, rotation = motion.rotationRate
        let magnitude = (acceleration * acceleration).sum().squareRoot(), turning = (rotation * rotation).sum().squareRoot()
        if magnitude > Self.accelerationThreshold || turning > Self.rotationThreshold { lastMotion = motion.timestamp }
        let now = lastMotion.map { motion.timestamp - $0 < Self.stillAfter } ?? false
        defer { isMoving = now }
        return now != isMoving
    }
}
