import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension CalibrationStore {
    /// Removes every calibration file (also damaged ones) and any temporary file an interrupted
    /// save left behind. Returns the calibration files removed.
    @discardableResult
    package func clearAll() throws(CalibrationStoreError) -> [String] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw CalibrationStoreError(path: directory.path, detail: "cannot be listed (\(error.localizedDescription))", fix: "Check its permissions")
        }
        var removed: [String] = []
        for name in names.sorted() {
            let isRecord = name.hasSuffix(".json") && !name.hasPrefix(".")
            let isLeftover = name.hasPrefix(".") && name.hasSuffix(".tmp")
            guard isRecord || isLeftover else { continue }
            let path = directory.appendingPathComponent(name).path
            guard unlink(path) == 0 else {
                throw CalibrationStoreError(path: path, detail: "cannot be removed (\(String(cString: strerror(errno))))", fix: "Check the permissions of \(directory.path)")
            }
            if isRecord { removed.append(path) }
        }
        return removed
    }
}
