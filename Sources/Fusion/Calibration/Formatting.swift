/// `value` with a fixed number of decimals ("12.35"), without Foundation.
package func fixedDecimals(_ value: Double, _ decimals: Int) -> String {
    // Beyond what an Int holds at this many decimals: plain Swift text (no trap on huge values).
    guard value.isFinite, abs(value) < 1e15 else { return "\(value)" }
    var scale = 1
    for _ in 0..<min(max(0, decimals), 3) { scale *= 10 }
    guard decimals <= 3 else { return "\(value)" }
    let scaled = Int((abs(value) * Double(scale)).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard decimals > 0 else { return sign + "\(scaled)" }
    let fraction = String(scaled % scale)
    return sign + "\(scaled / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction
}

/// "(x, y, z)" with a fixed number of decimals.
package func fixedDecimals(_ vector: SIMD3<Double>, _ decimals: Int) -> String {
    "(\(fixedDecimals(vector.x, decimals)), \(fixedDecimals(vector.y, decimals)), \(fixedDecimals(vector.z, decimals)))"
}
