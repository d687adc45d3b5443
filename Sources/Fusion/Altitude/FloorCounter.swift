/// Counts storeys climbed and descended from a relative altitude, as a pedometer's
/// `floorsAscended` / `floorsDescended` do: a storey is ``storeyHeight`` (3 m, about 36 Pa near
/// sea level). With hysteresis: a floor up is counted when the altitude has risen
/// ``threshold`` × storey above the floor last counted (or the start), and that floor is then
/// taken to be one whole storey higher; likewise down. So a person pausing mid-flight, the
/// barometer's noise, or a door slamming (a pressure step of a few pascals) counts nothing, and
/// going up a floor and back down counts one each way.
package struct FloorCounter: Sendable, Equatable {
    /// The height of a storey, m.
    package var storeyHeight: Double
    /// The fraction of a storey beyond the current floor that counts the next one.
    package var threshold: Double
    /// Floors counted going up.
    package private(set) var ascended = 0
    /// Floors counted going down.
    package private(set) var descended = 0
    /// The relative altitude of the floor last counted (the start's, at first), m.
    package private(set) var floorAltitude: Double?

    package init(storeyHeight: Double = 3, threshold: Double = 0.75) {
        self.storeyHeight = storeyHeight
        self.threshold = threshold
    }

    /// Takes one relative altitude (m); counts the floors it passes.
    package mutating func update(relativeAltitude altitude: Double) {
        guard altitude.isFinite else { return }
        guard var floor = floorAltitude else {
            floorAltitude = altitude
            return
        }
        let step = threshold * storeyHeight
        while altitude - floor >= step {
            floor += storeyHeight
            ascended += 1
        }
        while floor - altitude >= step {
            floor -= storeyHeight
            descended += 1
        }
        floorAltitude = floor
    }
}
