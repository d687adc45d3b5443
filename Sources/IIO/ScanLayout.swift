/// Where each enabled scan element sits in one buffer record.
///
/// The rule is the kernel's (drivers/iio/industrialio-buffer.c, `iio_compute_scan_bytes`): the
/// enabled elements in ascending `_index` order, each aligned to its own size (storage bytes ×
/// repeat), the timestamp last; the record is padded to a multiple of its largest element.
package struct ScanLayout: Sendable, Equatable {
    package struct Element: Sendable, Equatable {
        /// The element's name without `_en`/`_index`/`_type`, e.g. `in_accel_x`, `in_timestamp`.
        package var name: String
        package var index: Int
        package var type: ScanType
        /// Byte offset in the record.
        package var offset: Int
    }

    /// Elements in record order.
    package let elements: [Element]
    /// Bytes per record.
    package let recordSize: Int

    /// Lays out `enabled` (name, index, type) in the kernel's order.
    package init(_ enabled: [(name: String, index: Int, type: ScanType)]) {
        var offset = 0
        var largest = 1
        var placed: [Element] = []
        for element in enabled.sorted(by: { $0.index < $1.index }) {
            let size = element.type.byteCount
            offset = (offset + size - 1) / size * size
            placed.append(Element(name: element.name, index: element.index, type: element.type, offset: offset))
            offset += size
            largest = max(largest, size)
        }
        elements = placed
        recordSize = (offset + largest - 1) / largest * largest
    }

    package func element(_ name: String) -> Element? {
        elements.first { $0.name == name }
    }
}
