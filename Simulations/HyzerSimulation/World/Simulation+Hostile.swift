import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit
import HyzerSync

/// A hostile member (docs/security.md, "Forks, clocks and junk"): a phone that holds the group
/// secret and its own key, plays its part honestly, and once per live connection sends a crafted
/// bundle after its delta. Everything it crafts comes from the seed.
extension Simulation {
    /// What a hostile member sends besides an honest delta.
    enum HostileBundle: Int, CaseIterable {
        /// Many made-up identities with one op each, above a gap: kept pending, within the caps.
        case junkIdentities
        /// Made-up identities stamped at or beyond 2^63 ms: held, never applied.
        case farFutureStamps
        /// Sequence numbers beyond 2^63 − 1, and a segment whose last one passes 2^64: the
        /// bundle does not decode, the connection is refused.
        case outOfRangeSequences
        /// A bundle of junk cut short: it does not decode, the connection is refused.
        case cutShort
        /// A planted identity: a fresh key's signed log (its device and a player) that no
        /// member admitted. Ingested, but it counts nowhere (docs/security.md, "Membership").
        case plantedIdentity
        /// A planted identity whose log admits itself with the organizer's invitation, once
        /// with a proof the token never made and once without proof (kind 21): no use, no member.
        case fakeAdmissions

        /// Whether the attack needs a group with an organizer (in a random-id group every holder
        /// of the secret is a member).
        var needsOrganizer: Bool { self == .plantedIdentity || self == .fakeAdmissions }
    }

    /// The crafted bundle the hostile phone at `end` adds to its delta, once per connection,
    /// until the heal; nil for an honest device.
    func hostileBundle(_ connection: SimulatedConnection, _ end: Int, vector: VersionVector) -> [UInt8]? {
        let index = connection.ends[end].device
        guard index == hostile?.device, !connection.hostileBundleSent, !schedule.healed else { return nil }
        connection.hostileBundleSent = true
        let kinds = HostileBundle.allCases.filter { setUpInvitation != nil || !$0.needsOrganizer }
        let kind = kinds[random.below(kinds.count)]
        let segments: [AuthorSegment]
        switch kind {
        case .plantedIdentity, .fakeAdmissions:
            segments = [plantedSegment(admittingItself: kind == .fakeAdmissions)]
        case .junkIdentities, .cutShort:
            segments = (0..<random.integer(in: 20...200)).map { _ in
                junkSegment(sequence: UInt64(random.integer(in: 2...1_000)), stamp: world.now)
            }
        case .farFutureStamps:
            let beyond = UInt64(Int64.max)
            segments = [beyond, beyond + UInt64(random.below(1_000_000_000)), .max].map { junkSegment(sequence: 1, stamp: $0) }
        case .outOfRangeSequences:
            let op = junkSegment(sequence: 2, stamp: world.now)
            segments = [
                junkSegment(sequence: UInt64(Int64.max) + 1 + UInt64(random.below(1_000)), stamp: world.now),
                junkSegment(sequence: .max, stamp: world.now),
                AuthorSegment(
                    author: op.author, firstSequence: .max, previousHash: op.previousHash, tails: [op.tails[0], op.tails[0]],
                    lastSignature: op.lastSignature),
            ]
        }
        var bytes = HyzerSync.Bundle(groupID: group.id, sender: devices[index].author, senderVector: vector, segments: segments)
            .connectionEncoded()
        if kind == .cutShort { bytes = Array(bytes.prefix(random.integer(in: 1...bytes.count - 1))) }
        coverage.count(.hostileBundlesSent)
        record(
            "\(devices[index].name) sends a hostile bundle (\(kind)) of \(segments.count) segments, \(bytes.count) bytes on #\(connection.id)"
        )
        return bytes
    }

    /// What a hostile member puts in the shared folder, in an honest folder user's directory or
    /// a made-up one (docs/folder-sync.md): none of it holds an op an honest replica takes.
    enum HostileFile: Int, CaseIterable {
        /// Bytes under a content-hash name that is not theirs: refused by the hash.
        case garbageNamedLikeABundle
        /// A sealed bundle cut short, named by its own hash: it does not open.
        case truncatedBundle
        /// A valid bundle of the hostile member's, sealed and named right, in another member's
        /// directory: refused, its sender is not the directory's author.
        case bundleInAnotherDirectory
        /// Bytes named like a vector file: refused.
        case garbageVector
        /// A directory named like an author, with a bundle in it: no vector proves a member, ignored.
        case madeUpMember
        /// A join request of a made-up device in `joins/`: noise of a request's size, or the
        /// request layout for the organizer's invitation with a forged proof. Refused once and
        /// remembered; a real request is still found (docs/folder-sync.md).
        case junkJoinRequest
    }

    /// The hostile member writes one crafted file into the shared folder.
    func writeHostileFiles() throws {
        guard let phone = hostile?.device, let folder, devices[phone].isRunning, devices[phone].pendingCrash == nil, !schedule.healed else {
            return
        }
        let honest = devices.filter { $0.usesFolder && $0.index != phone && $0.isRunning }
        guard !honest.isEmpty else { return }
        let replica = devices[phone].running
        let held = try replica.group() ?? group
        let target = FolderLayout.memberDirectory(held, honest[random.below(honest.count)].author)
        let signed = HyzerSync.Bundle(
            groupID: held.id, sender: devices[phone].author, senderVector: try vector(of: phone),
            segments: [junkSegment(sequence: UInt64(random.integer(in: 2...1_000)), stamp: world.now)]
        ).encoded { replica.signature(of: $0) }
        let sealed = BundleFiles.seal(signed, group: held)
        let kind = HostileFile.allCases[random.below(HostileFile.allCases.count)]
        let path: String
        var bytes = sealed
        switch kind {
        case .garbageNamedLikeABundle:
            bytes = random.bytes(random.integer(in: 1...4_096))
            path = target + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        case .truncatedBundle:
            bytes = Array(sealed.prefix(random.integer(in: 1...sealed.count - 1)))
            path = target + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(bytes))
        case .bundleInAnotherDirectory:
            path = target + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        case .garbageVector:
            bytes = random.bytes(random.integer(in: 1...4_096))
            path = target + "/" + FolderLayout.vectorName(contentHash: Blake2b.hash256(bytes))
        case .madeUpMember:
            let madeUp = AuthorID(bytes: random.bytes(AuthorID.byteCount))!
            path = FolderLayout.memberDirectory(held, madeUp) + "/" + FolderLayout.bundleName(contentHash: Blake2b.hash256(sealed))
        case .junkJoinRequest:
            let madeUp = AuthorID(bytes: random.bytes(AuthorID.byteCount))!
            path = FolderJoin.requestPath(group: held.id, device: madeUp)
            if let invitation = setUpInvitation, random.below(2) == 0 {
                let real = JoinRequest(invitation: invitation, device: madeUp).bytes
                bytes = Array(real.prefix(68)) + random.bytes(JoinRequest.byteCount - 68)
            } else {
                bytes = random.bytes(JoinRequest.byteCount)
            }
        }
        do {
            try folder.write(path, bytes, writer: phone)
        } catch {
            throw fail(.unexpected, "the hostile member could not write \(path): \(error)")
        }
        hostile?.filePaths.insert(kind == .madeUpMember ? String(path[..<path.lastIndex(of: "/")!]) : path)
        coverage.count(.hostileFilesWritten)
        record("\(devices[phone].name) puts a hostile file (\(kind)) of \(bytes.count) bytes at \(path)")
    }

    /// A planted identity's whole log, signed by a fresh key: its device record and a player,
    /// and, when `admittingItself`, two admissions of itself with the organizer's invitation
    /// that no token proved. Recorded in the registry: every replica ends up holding it.
    private func plantedSegment(admittingItself: Bool) -> AuthorSegment {
        let keys = SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes))
        let author = keys.author
        var payloads: [OpPayload] = [
            .deviceRegistered(name: "planted", kind: .phone), .playerCreated(displayName: "Planted \(author.short)"),
        ]
        if admittingItself, let invitation = setUpInvitation {
            payloads += [
                .memberAdmittedWithProof(invite: invitation.id, device: author, proof: random.bytes(OpPayload.Limits.joinProofBytes)),
                .memberAdmitted(invite: invitation.id, device: author),
            ]
            coverage.count(.fakeAdmissionsSent, 2)
        }
        var ops: [SignedOp] = []
        for (offset, payload) in payloads.enumerated() {
            ops.append(
                SignedOp(
                    keys: keys, author: author, sequence: UInt64(offset + 1), previousHash: ops.last?.hash ?? SignedOp.noPreviousHash,
                    clock: HLCTimestamp(physicalMilliseconds: world.now + UInt64(offset)), payload: payload))
        }
        registry.recordPlanted(ops)
        hostile?.plantedAuthors.insert(author)
        coverage.count(.plantedIdentitiesSent)
        return AuthorSegment(ops: ops)
    }

    /// No honest replica counts a planted identity anywhere: not in its players, its members or
    /// the recipients of its newest epoch (docs/security.md, "Membership").
    func checkPlantedCountNowhere(_ device: SimulatedDevice) throws {
        guard setUpInvitation != nil, let planted = hostile?.plantedAuthors, !planted.isEmpty else { return }
        let replica = device.running
        let held = try vector(of: device.index)
        let members = Set(try replica.groupMembers().map(\.id))
        let recipients = try replica.group()?.recipients ?? []
        let players = try replica.players().map(\.displayName)
        for author in planted.sorted() {
            if members.contains(author) || recipients.contains(author) || players.contains("Planted \(author.short)") {
                throw fail(.safety, "\(device.name) counts the planted identity \(author.short) as a member")
            }
            if held[author] > 0 { coverage.count(.plantedIdentitiesRefused) }
        }
    }

    /// One op of a made-up identity at `sequence`, stamped `stamp`, signed by a fresh key.
    private func junkSegment(sequence: UInt64, stamp: UInt64) -> AuthorSegment {
        let keys = SigningKeyPair(seed: random.bytes(SigningKeyPair.seedBytes))
        let clock = HLCTimestamp(physicalMilliseconds: stamp)
        let op = SignedOp(
            author: AuthorID(bytes: keys.publicKey)!, sequence: sequence,
            previousHash: sequence == 1 ? SignedOp.noPreviousHash : random.bytes(32),
            tail: SignedOp.tail(clock: clock, payloadBytes: OpPayload.deviceRegistered(name: "junk", kind: .phone).encoded()),
            signature: nil)
        return AuthorSegment(ops: [op.with(signature: keys.sign(SignedOp.signedMessage(hash: op.hash)))])
    }

    /// Whether `author` is one of the simulated devices (every honest op has such an author).
    func isDeviceAuthor(_ author: AuthorID) -> Bool {
        devices.contains { $0.author == author } || registry.knows(author)
    }

    /// Junk stays bounded: a replica keeps at most 1,000 segments pending and 1,000 held
    /// (docs/security.md, "Forks, clocks and junk"), honest ones included. The caps count
    /// segments, not ops: overlapping honest segments count their ops twice in `pendingOps`.
    func checkJunkBounded(_ index: Int) throws {
        let aside = try devices[index].running.segmentsAside()
        for (kept, count) in [("pending", aside.pending), ("held", aside.held)] where count > Self.junkSegmentsMax {
            throw fail(.safety, "\(devices[index].name) keeps \(count) segments \(kept), above the cap of \(Self.junkSegmentsMax)")
        }
    }

    /// The cap on segments kept pending, and on segments held (docs/security.md).
    static let junkSegmentsMax = 1_000
}
