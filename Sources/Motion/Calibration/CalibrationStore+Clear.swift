import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension CalibrationStore {
    /// Removes every calibration file (also damaged ones) and the temporary files that writers
    /// which died left behind. Each record is removed holding its lock, the one every writer
    /// holds (``withRecordLocked(_:_:)``): a save in progress finishes first, and the temporary
    /// file of a writer that is alive is never touched. Returns the calibration files removed.
    @discardableResult
    package func clearAll() throws(CalibrationStoreError) -> [String] {
        guard try directoryExists() else { return [] }
        let names = try entries()
        // Each record's file name: `<record>.json`, or from a temporary `.<record>.json.<pid>.<uuid>.tmp`.
        var records = Set<String>()
        for name in names {
            if name.hasSuffix(".json"), !name.hasPrefix(".") {
                records.insert(name)
            } else if name.hasPrefix("."), name.hasSuffix(".tmp"), let end = name.range(of: ".json.") {
                records.insert(String(name[name.index(after: name.startIndex)..<end.lowerBound]) + ".json")
            }
        }
        var removed: [String] = []
        for record in records.sorted() {
            let path = directory.appendingPathComponent(record).path
            let gone = try withRecordLocked(fileName: record) { () throws(CalibrationStoreError) -> Bool in
                removeStaleTemporaries(ofFile: record)
                return try removeLocked(path)
            }
            if gone { removed.append(path) }
        }
        return removed
    }
}
