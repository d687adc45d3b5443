import Foundation

/// "12.35" with a fixed number of decimals.
package func decimals(_ value: Double, _ count: Int = 2) -> String { String(format: "%.\(count)f", value) }

/// "(1.00, -2.00, 3.00)".
package func decimals(_ vector: SIMD3<Double>, _ count: Int = 2) -> String {
    "(\(decimals(vector.x, count)), \(decimals(vector.y, count)), \(decimals(vector.z, count)))"
}
