import HyzerKit
import HyzerSync

/// One TCP connection between two devices of the simulated world: an ordered, reliable stream
/// of frames each way, with the shipped `SyncEngine` at each end (docs/simulation.md,
/// "Connections"). The world delivers the head frame of each direction when it has crossed;
/// the frames behind it wait, so order is kept whatever the delays.
final class SimulatedConnection {
    /// One end: the device, its engine, and the frames on their way to it.
    struct End {
        let device: Int
        /// The end's driver; nil only while it runs (`Simulation.drive`).
        var driver: ConnectionDriver?
        var engine: SyncEngine? { driver?.engine }
        /// Frames travelling toward this end, oldest first, each with the instant it has crossed.
        var inbound: [(bytes: [UInt8], due: UInt64)] = []
        /// Whether a delivery event for the head of `inbound` is scheduled.
        var deliveryScheduled = false
        /// When the last frame toward this end is due: a later frame is never due before it.
        var lastDue: UInt64 = 0
        /// Whether the head frame is waiting for a cut path to come back.
        var held = false
        /// What the peer had said it holds when its store was last checked to hold it.
        var checkedReport = VersionVector()
    }

    /// The run's number of this connection, in the trace and in events.
    let id: Int
    /// The dialer (0) and the listener (1).
    var ends: [End]
    var isOpen = true
    /// Set once the handshake has completed at the dialer: the dialer's backoff starts over.
    var established = false
    /// Whether a hostile member at one end has sent its crafted bundle (one per connection).
    var hostileBundleSent = false
    /// Whether the two ends held different newest group epochs when the connection began (a
    /// rekey had not reached one of them).
    var epochsDiffered = false
    /// When the engines are next told the time (the earlier of their deadlines), once scheduled.
    var tickAt: UInt64?

    init(id: Int, dialer: End, listener: End) {
        self.id = id
        self.ends = [dialer, listener]
    }

    /// The end of `device`, if it is one of the two.
    func end(of device: Int) -> Int? {
        ends.firstIndex { $0.device == device }
    }

    /// The earlier of the two engines' deadlines (`SyncEngine.nextDeadline`).
    var nextDeadline: UInt64? {
        switch (ends[0].engine?.nextDeadline, ends[1].engine?.nextDeadline) {
        case (let a?, let b?): min(a, b)
        case (let a, let b): a ?? b
        }
    }

    var dialer: Int { ends[0].device }
    var listener: Int { ends[1].device }
}
