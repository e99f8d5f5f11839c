/// One message on a direct link, in flight: the bytes the link protocol produced, and what the
/// simulator needs to deliver and account for it.
struct LinkMessage {
    let from: Int
    let to: Int
    /// The sender's count of messages on this link, from 1: what reveals reordering.
    let index: Int
    let bytes: [UInt8]
    /// Whether this copy is the second delivery of a duplicated message.
    let isDuplicate: Bool
}

/// A directed link, as a dictionary key (only ever looked up, never iterated).
struct LinkKey: Hashable {
    let from: Int
    let to: Int
}
