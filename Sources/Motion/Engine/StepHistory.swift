/// The steps a process has counted, for queries over past intervals: each step's time (s,
/// monotonic) in a ring of fixed capacity, made once, so recording a step never allocates. The
/// oldest go first when it is full, and steps older than `maximumAge` are not answered for.
struct StepHistory: Sendable {
    /// Steps kept: 100,000, about a week for someone walking 14,000 steps a day (800 kB).
    static let defaultCapacity = 100_000
    /// Seven days, as long as Core Motion keeps its pedometer history.
    static let defaultMaximumAge = 7 * 86_400.0

    let capacity: Int
    let maximumAge: Double
    private var times: [Double]
    /// Index of the oldest step in `times`.
    private var head = 0
    private(set) var count = 0

    init(capacity: Int = StepHistory.defaultCapacity, maximumAge: Double = StepHistory.defaultMaximumAge) {
        self.capacity = max(1, capacity)
        self.maximumAge = maximumAge
        times = [Double](repeating: 0, count: self.capacity)
    }

    /// Records a step at `time` (not earlier than the last one: a step out of order is taken at
    /// the last one's time).
    mutating func append(_ time: Double) {
        let time = count > 0 ? max(time, self[count - 1]) : time
        if count == capacity {
            times[head] = time
            head = (head + 1) % capacity
        } else {
            times[(head + count) % capacity] = time
            count += 1
        }
    }

    /// The i-th oldest step kept.
    subscript(index: Int) -> Double { times[(head + index) % capacity] }

    /// How many kept steps lie in `[from, to)` (`now` bounds what is still answered for).
    func steps(from: Double, to: Double, now: Double) -> Int {
        let from = max(from, now - maximumAge)
        guard to > from else { return 0 }
        return firstIndex(atOrAfter: to) - firstIndex(atOrAfter: from)
    }

    /// The seconds spent walking in `[from, to)`: the sum of the intervals between consecutive
    /// steps in it that are at most `maximumInterval` apart (a longer gap is a pause).
    func activeTime(from: Double, to: Double, now: Double, maximumInterval: Double) -> Double {
        let from = max(from, now - maximumAge)
        guard to > from else { return 0 }
        let first = firstIndex(atOrAfter: from), end = firstIndex(atOrAfter: to)
        var total = 0.0
        var index = first + 1
        while index < end {
            let interval = self[index] - self[index - 1]
            if interval <= maximumInterval { total += interval }
            index += 1
        }
        return total
    }

    /// The oldest kept step's time, nil when none.
    var oldest: Double? { count > 0 ? self[0] : nil }

    /// Index of the first kept step at or after `time` (binary search).
    private func firstIndex(atOrAfter time: Double) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < time { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// The activities a process has seen, oldest first, in a ring of fixed capacity (made once).
struct ActivityHistory<Entry: Sendable>: Sendable {
    /// Changes kept: 10,000 (days of ordinary life; Core Motion answers for seven days).
    static var defaultCapacity: Int { 10_000 }

    let capacity: Int
    private var entries: [Entry?]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int = Self.defaultCapacity) {
        self.capacity = max(1, capacity)
        entries = [Entry?](repeating: nil, count: self.capacity)
    }

    mutating func append(_ entry: Entry) {
        if count == capacity {
            entries[head] = entry
            head = (head + 1) % capacity
        } else {
            entries[(head + count) % capacity] = entry
            count += 1
        }
    }

    /// The entries oldest first.
    var all: [Entry] { (0..<count).compactMap { entries[(head + $0) % capacity] } }

    /// The newest entry.
    var last: Entry? { count > 0 ? entries[(head + count - 1) % capacity] : nil }
}
