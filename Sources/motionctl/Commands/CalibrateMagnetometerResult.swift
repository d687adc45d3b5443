import CommandSupport
import Fusion
import Motion
import MotionTools

extension MagnetometerResult {
    /// The outcome for a person.
    var text: String {
        let m = softIronMatrix.map { decimals($0, 3) }
        var lines = [
            "",
            "Magnetometer calibration of \(sensor)",
            "  stopped:         \(stoppedBecause)",
            "  samples:         \(sampleCount) (\(outlierCount) outliers dropped)",
            "  field strength:  \(decimals(fieldStrength, 1)) µT " + (fieldStrengthPlausible
                ? "(plausible for the Earth: 22–67 µT)" : "(NOT plausible for the Earth's 22–67 µT: steel or a magnet nearby?)"),
            "  fit error:       \(decimals(fitErrorPercent)) %",
            "  coverage:        \(decimals(coveragePercent, 0)) % (\(missingRegionCount) of \(SphereCoverage.cells.count) regions missing"
                + (missingDirections.isEmpty ? ")" : "; around \(missingDirections.joined(separator: ", ")))"),
        ]
        if missingRegionCount > 0 {
            lines.append("  directions covered (# covered, . missing; top row +z, bottom -z):")
            lines += coverageMap.map { "      " + $0 }
        }
        lines += [
            "  model:           \(model): \(reason)",
            "  accuracy:        \(accuracy)",
            "  hard-iron offset: (\(hardIronOffset.map { decimals($0) }.joined(separator: ", "))) µT, chip axes",
            "  soft-iron matrix: [\(m[0...2].joined(separator: " ")); \(m[3...5].joined(separator: " ")); \(m[6...8].joined(separator: " "))]",
        ]
        if let path {
            lines.append("Saved to \(path)")
        } else {
            lines.append("Not saved: \(notSavedBecause ?? "the fit is too poor to use"). Turn the board through every orientation and try again.")
        }
        if let plot { lines.append("Plot written to \(plot)") }
        return lines.joined(separator: "\n")
    }
}
