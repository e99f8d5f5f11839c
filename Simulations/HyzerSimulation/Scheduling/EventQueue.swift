/// The simulator's agenda: events ordered by time, and events due at the same millisecond by
/// the order they were scheduled in. Nothing else — no hash, no address — decides the order,
/// so the same schedule always plays out the same way.
public struct EventQueue<Event> {
    private struct Entry {
        let time: UInt64
        let order: UInt64
        let event: Event

        func precedes(_ other: Entry) -> Bool {
            (time, order) < (other.time, other.order)
        }
    }

    private var heap: [Entry] = []
    private var scheduled: UInt64 = 0

    /// An empty agenda.
    public init() {}

    /// Whether no event is left.
    public var isEmpty: Bool { heap.isEmpty }
    /// Events still to come.
    public var count: Int { heap.count }

    /// Schedules `event` at `time`.
    public mutating func schedule(_ event: Event, at time: UInt64) {
        heap.append(Entry(time: time, order: scheduled, event: event))
        scheduled += 1
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// The time of the next event, if any.
    public var nextTime: UInt64? { heap.first?.time }

    /// Removes and returns the earliest event.
    public mutating func pop() -> (time: UInt64, event: Event)? {
        guard !heap.isEmpty else { return nil }
        heap.swapAt(0, heap.count - 1)
        let entry = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            if first == parent { break }
            heap.swapAt(parent, first)
            parent = first
        }
        return (entry.time, entry.event)
    }
}
