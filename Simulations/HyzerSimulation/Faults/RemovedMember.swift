/// A phone the organizer (phone 0) removes from the group and rekeys away from
/// (docs/security.md, "Removing a member"). Once removed it cannot read what is written after
/// the rekey, so it is left out of the comparison.
final class RemovedMember: DeviceFault {
    let device: Int
    /// When the organizer first tries to remove it.
    let at: UInt64
    /// The last op of it that counts, once the organizer removed it.
    var through: UInt64?

    init(device: Int, at: UInt64) {
        self.device = device
        self.at = at
    }

    /// Whether the organizer has removed it.
    var isRemoved: Bool { through != nil }

    /// Whether `index` is this phone, once removed.
    func isOut(_ index: Int) -> Bool { isRemoved && index == device }

    func leavesOutOfComparison(_ index: Int) -> Bool { isOut(index) }
}
