/// A sensor's mount matrix: rotates chip axes into the axes of the hardware it is mounted on.
///
/// Text form (Documentation/ABI/testing/sysfs-bus-iio, `mount_matrix`): `"x1, y1, z1; x2, y2,
/// z2; x3, y3, z3"`. Applied as in Documentation/devicetree/bindings/iio/mount-matrix.txt:
/// x' = x1·x + y1·y + z1·z, y' = x2·x + … — each `;`-separated group is one row.
package struct MountMatrix: Sendable, Equatable, CustomStringConvertible {
    package var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)

    package static let identity = MountMatrix(rows: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)))

    package init(rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) {
        self.rows = rows
    }

    /// Parses the attribute text; anything but three groups of three finite numbers is
    /// `IIOError.badValue` naming `path`.
    package init(parsing text: String, path: String = "mount matrix") throws(IIOError) {
        let groups = text.split(separator: ";")
        let values = groups.map { $0.split(separator: ",").map { Double($0.trimmingSpaces) } }
        guard groups.count == 3, values.allSatisfy({ $0.count == 3 }),
              let numbers = Optional(values.flatMap { $0 }.compactMap { $0 }), numbers.count == 9, numbers.allSatisfy(\.isFinite)
        else {
            throw IIOError(
                .badValue, path: path, detail: "\"\(text.prefix(80))\" is not a mount matrix (\"x1, y1, z1; x2, y2, z2; x3, y3, z3\")",
                hint: "check the device tree's mount-matrix property")
        }
        rows = (SIMD3(numbers[0], numbers[1], numbers[2]), SIMD3(numbers[3], numbers[4], numbers[5]), SIMD3(numbers[6], numbers[7], numbers[8]))
    }

    package func apply(_ vector: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((rows.0 * vector).sum(), (rows.1 * vector).sum(), (rows.2 * vector).sum())
    }

    package static func == (lhs: MountMatrix, rhs: MountMatrix) -> Bool {
        lhs.rows.0 == rhs.rows.0 && lhs.rows.1 == rhs.rows.1 && lhs.rows.2 == rhs.rows.2
    }

    package var description: String {
        [rows.0, rows.1, rows.2].map { "\($0.x), \($0.y), \($0.z)" }.joined(separator: "; ")
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }
}
