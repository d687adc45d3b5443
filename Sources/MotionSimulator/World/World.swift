import Fusion

/// The true state of the simulated device at one instant: what a perfect sensor would read.
public struct GroundTruth: Sendable, Equatable {
    /// Seconds since boot.
    public var time: Double
    /// Device frame → world frame (East-North-Up). q and −q are the same attitude and the sign
    /// may change between segments: compare attitudes with `angle(to:)`, not component-wise.
    public var attitude: Quaternion
    /// rad/s, device frame, right-hand rule.
    public var angularRate: SIMD3<Double>
    /// m/s², device frame: acceleration minus gravity. Face up at rest: (0, 0, +9.80665).
    public var specificForce: SIMD3<Double>
    /// µT, device frame: Earth field plus disturbances.
    public var magneticField: SIMD3<Double>
    /// Metres, world frame, relative to where the script started.
    public var position: SIMD3<Double>
    /// m/s, world frame.
    public var velocity: SIMD3<Double>
    /// m/s², world frame (without gravity).
    public var acceleration: SIMD3<Double>

    /// Gravity in g, device frame, Core Motion sign (face up: (0, 0, −1)) — what a perfect
    /// `DeviceMotion.gravity` reports.
    public var gravity: SIMD3<Double> { attitude.inverseRotate(SIMD3(0, 0, -1)) }

    /// Acceleration the user gives the device, in g, device frame, Core Motion sign (opposite to
    /// the acceleration, like the raw reading) — what a perfect `DeviceMotion.userAcceleration`
    /// reports. `gravity + userAcceleration` is the Core Motion accelerometer reading, −f/g.
    public var userAcceleration: SIMD3<Double> {
        -attitude.inverseRotate(acceleration) / PhysicalState.standardGravity
    }
}

/// The simulated world: a motion script played from `startTime`, gravity, the Earth's field at a
/// location and local magnetic disturbances. As a ``PhysicalSource`` it reports what the chip
/// experiences, in the chip's axes (`mount` maps device axes to chip axes).
///
/// Cheap and stateless: any time can be asked for, in any order.
public struct World: PhysicalSource {
    package var script: MotionScript {
        didSet { stepTimeline = script.stepTimes }
    }
    /// The script's step times (``MotionScript/stepTimes``), kept: a pedometer's emulator asks on every read.
    private var stepTimeline: [Double]
    package var earthField: EarthField
    package var disturbances: [MagneticDisturbance]
    /// Chip axes from device axes: `chipVector = mount · deviceVector`.
    package var mount: Matrix3
    /// Die temperature, °C.
    package var temperature: Double
    /// Seconds since boot at which the script starts (before it: the starting pose at rest).
    package var startTime: Double
    /// The sea-level pressure and how it drifts over the script.
    package var weather: Weather
    /// Metres above sea level of the script's origin (position z = 0).
    package var elevation: Double

    package init(
        script: MotionScript, earthField: EarthField = .berlin, disturbances: [MagneticDisturbance] = [],
        mount: Matrix3 = .identity, temperature: Double = 25, startTime: Double = 0,
        weather: Weather = .still, elevation: Double = 0
    ) {
        self.script = script
        self.stepTimeline = script.stepTimes
        self.earthField = earthField
        self.disturbances = disturbances
        self.mount = mount
        self.temperature = temperature
        self.startTime = startTime
        self.weather = weather
        self.elevation = elevation
    }

    /// Metres above sea level at `time` (seconds since boot): the elevation plus the height the
    /// script has climbed.
    package func altitude(at time: Double) -> Double {
        elevation + script.kinematics(at: time - startTime).position.z
    }

    /// The sea-level pressure (QNH) at `time`, Pa: the weather's.
    package func seaLevelPressure(at time: Double) -> Double {
        weather.seaLevelPressure(at: time - startTime)
    }

    /// The air pressure at the device at `time`, Pa: the standard atmosphere's at its altitude
    /// below the weather's sea-level pressure.
    package func pressure(at time: Double) -> Double {
        StandardAtmosphere.pressure(altitude: altitude(at: time), seaLevel: seaLevelPressure(at: time))
    }

    /// The true motion and fields at `time` (seconds since boot), device frame.
    public func truth(at time: Double) -> GroundTruth {
        let motion = script.kinematics(at: time - startTime)
        let gravity = SIMD3<Double>(0, 0, -PhysicalState.standardGravity)
        let specificForce = motion.attitude.inverseRotate(motion.acceleration - gravity)
        return GroundTruth(
            time: time, attitude: motion.attitude, angularRate: motion.angularRate, specificForce: specificForce,
            magneticField: magneticField(attitude: motion.attitude, position: motion.position, scriptTime: time - startTime),
            position: motion.position, velocity: motion.velocity, acceleration: motion.acceleration)
    }

    /// The field in µT in the device frame for a device at `position` (world, metres) with
    /// `attitude`, `scriptTime` seconds into the script (for magnets attached during it).
    package func magneticField(attitude: Quaternion, position: SIMD3<Double>, scriptTime: Double = .infinity) -> SIMD3<Double> {
        let earth = earthField.vector
        var world = earth
        var device = SIMD3<Double>.zero
        for disturbance in disturbances {
            switch disturbance {
            case let .magnetInWorld(magnetPosition, moment):
                world += dipoleField(moment: moment, offset: position - magnetPosition)
            case let .magnetOnDevice(magnetPosition, moment):
                device += dipoleField(moment: moment, offset: -magnetPosition)
            case let .magnetAttached(magnetPosition, moment, after):
                if scriptTime >= after { device += dipoleField(moment: moment, offset: -magnetPosition) }
            case let .steelDesk(desk):
                let weight = desk.weight(atHeight: position.z)
                if weight > 0 { world += weight * (desk.induced * earth + desk.remanent) }
            }
        }
        return attitude.inverseRotate(world) + device
    }

    package func state(at time: Double) -> PhysicalState {
        let truth = truth(at: time)
        return PhysicalState(
            time: time, specificForce: mount * truth.specificForce, angularRate: mount * truth.angularRate,
            magneticField: mount * truth.magneticField, temperature: temperature,
            orientation: Quaternion.aboutZ(earthField.declination) * truth.attitude * chipToDevice,
            pressure: StandardAtmosphere.pressure(
                altitude: elevation + truth.position.z, seaLevel: weather.seaLevelPressure(at: time - startTime)))
    }

    /// Steps whose impact is before `time` (seconds since boot), by bisection of the script's step times.
    package func stepsTaken(before time: Double) -> Int {
        let scriptTime = time - startTime
        var low = 0
        var high = stepTimeline.count
        while low < high {
            let middle = (low + high) / 2
            if stepTimeline[middle] < scriptTime { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The orientation above is chip → *magnetic* East-North-Up, the frame a chip's own fusion
    /// knows: the truth (true ENU) turned by the declination (magnetic east lies at yaw −D).
    /// Chip axes → device axes as a rotation (the mount's inverse: a mount matrix is orthonormal).
    private var chipToDevice: Quaternion { mount == .identity ? .identity : Quaternion(rotationMatrix: mount.transposed) }
}
