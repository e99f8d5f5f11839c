import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// The fixed group and keys every fuzz target and the corpus generator share, so that the
/// checked-in seeds open, verify and chain under the same keys the targets use.
public enum FuzzFixtures {
    /// The group whose file key seals every corpus file.
    public static let group = GroupMembership(
        id: UUID(uuidString: "f0220000-0000-8000-8000-00000000f022")!,
        secret: [UInt8](repeating: 0x5a, count: GroupMembership.secretBytes))

    /// The invitation the invite target's store issued (admitting 2 devices, never expiring).
    public static let invitation = Invitation(groupID: group.id, secret: [UInt8](repeating: 0x1f, count: Invitation.secretBytes))
    /// The device that asks with it in the seeds.
    public static let joiner = keys(8)

    /// Key pair number `n`, from a fixed seed.
    public static func keys(_ n: UInt8) -> SigningKeyPair {
        SigningKeyPair(seed: [UInt8](repeating: n, count: SigningKeyPair.seedBytes))
    }

    /// The key that signs bundles in the structure-aware targets.
    public static let sender = keys(1)
    /// The authors whose segments the ingest target signs.
    public static let authors = [keys(2), keys(3)]

    public static func author(_ keys: SigningKeyPair) -> AuthorID { AuthorID(bytes: keys.publicKey)! }

    /// Calls libFuzzer's attention to a broken invariant: the process stops with the input saved.
    public static func require(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("fuzz invariant broken: \(message())") }
    }

    /// The value of a fixture that cannot fail unless the harness itself is broken.
    public static func require<Value>(_ make: () throws -> Value) -> Value {
        do {
            return try make()
        } catch {
            fatalError("fuzz fixture failed: \(error)")
        }
    }
}
