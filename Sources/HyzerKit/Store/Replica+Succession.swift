import Foundation
import GRDB
import HyzerCrypto
import HyzerDomain

extension Replica {
    static let nextKeyFileName = "identity.key.next"

    /// Continues this store under a new device key (`hyzer-peer device continue`): for a store
    /// that was restored from a backup or copied, whose key another copy may still write with.
    ///
    /// The new key writes its device record and a succession op carrying the old key's
    /// signature of the new key; every replica then counts the new device as an owner of every
    /// player the old one owned (organizer rights and rounds included). The old key never
    /// writes again. The store keeps the old key's X25519 half, which opens but cannot sign: the
    /// group secrets sealed to the old key (every rekey before the organizer knew of the new
    /// one) still open (docs/security.md, "Re-keying"). A device the organizer removed cannot
    /// continue. Returns the replica under its new key; `self` must not be used afterwards.
    public func continueUnderNewKey(_ newKeys: SigningKeyPair = .generate()) throws -> Replica {
        let successor = newKeys.author
        let signature = keys.sign(DeviceSuccession.message(successor: successor))
        let identity = try identity()
        if let through = try read({ db in try Self.removedThrough(author, db) }) {
            throw ReplicaError.removedFromGroup(through: through)
        }
        let kept = keys.publicKey + keys.curve25519SecretKey
        // The new key is written beside the old one first; `open` completes a succession that
        // a crash interrupted after the database committed it.
        try KeyFile.write(newKeys, to: directory.appendingPathComponent(Self.nextKeyFileName))
        let next = Replica(
            directory: directory, keys: newKeys, database: database, clock: clock, ingestClock: ingestClock, policies: policies,
            medium: medium)
        try next.write { db in
            try Meta.set(.replica, newKeys.publicKey, in: db)
            try Meta.remove(.writtenElsewhere, in: db)
            try Meta.set(.predecessorKeys, (try Meta.get(.predecessorKeys, in: db) ?? []) + kept, in: db)
            try next.append(.deviceRegistered(name: identity.name, kind: identity.kind), in: db)
            try next.append(.deviceSucceeded(predecessor: author, signature: signature), in: db)
        }
        try Self.finishSuccession(in: directory, medium: medium)
        return next
    }

    /// Moves a new key written by `continueUnderNewKey` into place once the database names it.
    static func finishSuccession(in directory: URL, medium: DatabaseMedium) throws {
        let next = directory.appendingPathComponent(nextKeyFileName)
        guard FileManager.default.fileExists(atPath: next.path) else { return }
        let keys = try KeyFile.read(from: next)
        let database = try DatabaseQueue(path: medium.location(of: directory.appendingPathComponent(databaseFileName)))
        defer { try? database.close() }
        let replica = try database.read { try Meta.get(.replica, in: $0) }
        if replica == keys.publicKey {
            guard rename(next.path, directory.appendingPathComponent(keyFileName).path) == 0 else {
                throw ReplicaError.storage(detail: "cannot move the new key into place")
            }
        } else {
            try FileManager.default.removeItem(at: next)  // the database never took it: the old key stays
        }
    }
}
