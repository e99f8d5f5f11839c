import Synchronization

/// The services a browse has found and resolved, at most `servicesMax` (more are not kept until
/// some are lost), and only those `keeps` wants (a server keeps only its group's tag, so that
/// a flood of others takes no room): what a `ServiceDiscovery` fills and its caller reads. Each change rings
/// `changes()`; a burst of changes is one ring, so a flood of announcements costs its reader
/// one pass over at most `servicesMax` services per turn, however many arrive.
public final class DiscoveredServices: Sendable {
    /// The most services kept at once.
    public let servicesMax: Int
    private let keeps: @Sendable (DiscoveredService) -> Bool
    private let state: Mutex<State>

    private struct State {
        /// Each service with the order it was first found in.
        var services: [String: (service: DiscoveredService, arrival: Int)] = [:]
        var arrivals = 0
        var bells: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextBell = 0
    }

    /// An empty table of at most `servicesMax` services, of those `keeps` wants.
    public init(servicesMax: Int = 256, keeps: @escaping @Sendable (DiscoveredService) -> Bool = { _ in true }) {
        self.servicesMax = max(1, servicesMax)
        self.keeps = keeps
        state = Mutex(State())
    }

    /// Records `service`, or its new address or record; false when the table is full and it is
    /// new, or `keeps` does not want it (a service it held under that name is forgotten).
    @discardableResult
    public func found(_ service: DiscoveredService) -> Bool {
        guard keeps(service) else {
            lost(service.name)
            return false
        }
        let (kept, bells) = state.withLock { state -> (Bool, [AsyncStream<Void>.Continuation]) in
            if let known = state.services[service.name] {
                guard known.service != service else { return (true, []) }
                state.services[service.name] = (service, known.arrival)
            } else {
                guard state.services.count < servicesMax else { return (false, []) }
                state.arrivals += 1
                state.services[service.name] = (service, state.arrivals)
            }
            return (true, Array(state.bells.values))
        }
        for bell in bells { bell.yield() }
        return kept
    }

    /// Forgets the service named `name`.
    public func lost(_ name: String) {
        let bells = state.withLock { state in
            state.services.removeValue(forKey: name) == nil ? [] : Array(state.bells.values)
        }
        for bell in bells { bell.yield() }
    }

    /// Every service now, in the order they were first found: a copy of a member's record
    /// comes after the member's own.
    public var all: [DiscoveredService] {
        state.withLock { $0.services.values.sorted { $0.arrival < $1.arrival }.map(\.service) }
    }

    /// Rings once at once, then after each change (a burst is one ring), until the caller stops listening.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
        let id = state.withLock { state in
            state.nextBell += 1
            state.bells[state.nextBell] = continuation
            return state.nextBell
        }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.bells.removeValue(forKey: id) } }
        return stream
    }

    /// Rings every listener without a change: a reader that looks again on a schedule (a
    /// discovered peer given up a while ago may be dialed again).
    func ring() {
        for bell in state.withLock({ Array($0.bells.values) }) { bell.yield() }
    }
}
