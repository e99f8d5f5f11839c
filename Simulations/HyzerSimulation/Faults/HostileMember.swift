import HyzerDomain

/// A phone that holds the group secret and its own key, plays its part honestly, and crafts
/// bundles and folder files besides (docs/security.md, "Forks, clocks and junk"; the attacks are
/// in `Simulation+Hostile.swift`).
final class HostileMember: DeviceFault {
    let device: Int
    /// The files it put in the shared folder.
    var filePaths: Set<String> = []
    /// The identities it planted (docs/security.md, "Membership"): signed logs of fresh keys no
    /// member admitted, some with admissions the token never proved.
    var plantedAuthors: Set<AuthorID> = []

    init(device: Int) {
        self.device = device
    }
}
