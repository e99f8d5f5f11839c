import Foundation
import FuzzSupport
import HyzerCrypto
import HyzerDomain
import HyzerKit

@testable import HyzerSync

// Writes the seed corpora (`make fuzz-corpus`): real bundles, sealed files, vectors, ops,
// tokens, frames and messages made by the real code, one directory per fuzz target, under the
// directory given as the only argument. Keys, group and clock are fixed, so a run writes the
// same files every time, except the handshake's, whose ephemeral keys are fresh.

struct FixedClock: WallClock {
    func nowMilliseconds() -> UInt64 { 1_717_200_000_000 }
}

let output = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? "Fuzz/Corpus")
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hyzer-fuzz-corpus-\(getpid())")
defer { try? FileManager.default.removeItem(at: scratch) }

func need<Value>(_ value: Value?, _ what: String) -> Value {
    guard let value else { fatalError("the corpus generator found no \(what)") }
    return value
}

func write(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
    let directory = output.appendingPathComponent(target)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data(bytes).write(to: directory.appendingPathComponent(name))
}

func replica(_ name: String, keys: SigningKeyPair, owner: String) throws -> Replica {
    let replica = try Replica.create(
        at: scratch.appendingPathComponent(name), name: name, kind: .phone, owner: owner, clock: FixedClock(), keys: keys)
    try replica.join(FuzzFixtures.group)
    return replica
}

// Two replicas whose ops cover every payload kind.
let phone = try replica("phone", keys: FuzzFixtures.authors[0], owner: "Ann")
let watch = try replica("watch", keys: FuzzFixtures.authors[1], owner: "Ben")
_ = try phone.addPlayer(name: "Cy")
_ = try phone.renamePlayer("Cy", to: "Cyd")
_ = try phone.addCourse(name: "Tiny", pars: [3, 4, 5])
try phone.setPar(course: "Tiny", hole: 2, par: 3)
try phone.renameCourse("Tiny", to: "Little")
let round = try phone.startRound(course: "Maple Hill", players: ["Ann", "Cyd"], guests: ["Gus"])
let first = try phone.recordScore(round: round.id.lowercased, player: "Ann", hole: 1, strokes: 4)
_ = try phone.recordScore(round: round.id.lowercased, player: "Gus", hole: 1, strokes: 3)
_ = try phone.correct(event: first.id.lowercased, strokes: 3)
_ = try phone.finishRound(round.id.lowercased, force: true)
try phone.deleteCourse("Little")
_ = try BundleFiles.import(try BundleFiles.export(phone), into: watch)
try watch.linkDevice(phone.author.hex, owner: "Ben")

func vectorBundle(_ replica: Replica) throws -> [UInt8] {
    Bundle(groupID: FuzzFixtures.group.id, sender: replica.author, senderVector: try replica.versionVector(), segments: [])
        .encoded(signedBy: replica.signature(of:))
}

let phoneExport = try BundleFiles.export(phone)
let watchExport = try BundleFiles.export(watch)
let phoneBundle = try SealedFile.open(phoneExport, group: FuzzFixtures.group).bundle
let watchBundle = try SealedFile.open(watchExport, group: FuzzFixtures.group).bundle
let phoneVector = try vectorBundle(phone)
let watchVector = try vectorBundle(watch)
let phoneConnectionBundle = try phone.deltaBundles(above: VersionVector(), group: FuzzFixtures.group, bytesMax: 1 << 20).bundles[0]

// Sealed files, as folders and `export` hold them.
try write("FuzzSealedFile", "phone-export.hzb", phoneExport)
try write("FuzzSealedFile", "watch-export.hzb", watchExport)
try write("FuzzSealedFile", "phone-vector.hzv", SealedFile.seal(phoneVector, group: FuzzFixtures.group))

// Bundles, once opened; vector files' bundles.
try write("FuzzBundle", "phone.bundle", phoneBundle)
try write("FuzzBundle", "watch.bundle", watchBundle)
try write("FuzzBundle", "phone-vector.bundle", phoneVector)
try write("FuzzBundle", "phone-connection.bundle", phoneConnectionBundle)
try write("FuzzVectorFile", "phone-vector.bundle", phoneVector)
try write("FuzzVectorFile", "watch-vector.bundle", watchVector)

// Ingest inputs: the phone's ops whole, split around a gap, and forked.
let phoneOps = need(try phone.delta(above: VersionVector()).first { $0.author == phone.author }, "phone ops").tails
let watchOps = need(try watch.delta(above: VersionVector()).first { $0.author == watch.author }, "watch ops").tails
func ingestInput(_ segments: [IngestInput.Segment]) -> [UInt8] { IngestInput(segments: segments).encoded() }
try write(
    "FuzzIngest", "whole-logs",
    ingestInput([
        .init(selector: 0, firstSequence: 1, tails: phoneOps), .init(selector: 1, firstSequence: 1, tails: watchOps),
    ]))
try write(
    "FuzzIngest", "gap-then-fill",
    ingestInput([
        .init(selector: 0, firstSequence: 6, tails: Array(phoneOps[5...])),
        .init(selector: 0, firstSequence: 1, tails: Array(phoneOps[..<5])),
    ]))
try write(
    "FuzzIngest", "fork",
    ingestInput([
        .init(selector: 0, firstSequence: 1, tails: Array(phoneOps[..<4])), .init(selector: 0, firstSequence: 3, tails: [watchOps[2]]),
    ]))

// Op payloads, one of each kind, and segments as bundles carry them.
var kinds = Set<UInt8>()
for tail in phoneOps + watchOps where tail.count > 12 && kinds.insert(tail[12]).inserted {
    try write("FuzzOpPayload", "payload-\(tail[12])", Array(tail.dropFirst(12)))
}
// Kinds a played round does not write: an older build's finish, an invitation and an admission.
try write("FuzzOpPayload", "payload-9", OpPayload.roundFinished(roundID: round.id, force: true).encoded())
try write(
    "FuzzOpPayload", "payload-20", OpPayload.inviteIssued(key: FuzzFixtures.invitation.key, expiresAt: 1_717_203_600_000, uses: 3).encoded()
)
try write(
    "FuzzOpPayload", "payload-21",
    OpPayload.memberAdmitted(invite: FuzzFixtures.invitation.id, device: FuzzFixtures.author(FuzzFixtures.joiner)).encoded())
try write(
    "FuzzOpPayload", "payload-23",
    OpPayload.inviteIssuedWithVerifier(
        key: FuzzFixtures.invitation.key, verifier: FuzzFixtures.invitation.verifier, expiresAt: 1_717_203_600_000, uses: 3
    ).encoded())
try write(
    "FuzzOpPayload", "payload-22",
    OpPayload.memberAdmittedWithProof(
        invite: FuzzFixtures.invitation.id, device: FuzzFixtures.author(FuzzFixtures.joiner),
        proof: JoinRequest(invitation: FuzzFixtures.invitation, device: FuzzFixtures.author(FuzzFixtures.joiner)).proof
    ).encoded())
try write("FuzzOpPayload", "segment", need(try watch.delta(above: VersionVector()).first, "a segment").encoded())

// Session messages, and the same as frames on the wire.
let messages: [(String, SyncMessage)] = [
    ("hello", .hello(try phone.versionVector(), live: true)),
    (
        "reconcile",
        .reconcile(
            ReconcileStep(
                splits: [AuthorRange.root.children[3]: AuthorRange.root.children.map { _ in RangeSummary(count: 2, fingerprint: 7) }],
                entries: [AuthorRange.root: try watch.versionVector()]))
    ),
    ("have", .have(try watch.versionVector())),
    ("bundle-part", .bundlePart(bytes: Array(phoneConnectionBundle.prefix(600)), final: false)),
    ("done", .done),
    ("bye", .bye(reason: "shutting down")),
]
for (name, message) in messages { try write("FuzzSyncMessage", name, message.encoded()) }
func frame(_ bytes: [UInt8]) -> [UInt8] {
    var writer = ByteWriter()
    writer.write(UInt32(bytes.count))
    writer.write(raw: bytes)
    return writer.bytes
}
try write("FuzzFrames", "messages-whole", [255] + messages.flatMap { frame($0.1.encoded()) })
try write("FuzzFrames", "messages-in-small-chunks", [6] + messages.flatMap { frame($0.1.encoded()) })
try write("FuzzFrames", "oversized-length", [3] + frame([1, 2, 3]) + [0x00, 0x04, 0x00, 0x41])

// Handshake messages: a state selector, then what a real peer sends in that state; then the
// plaintexts of identity messages (the target seals them), and lineages after a real identity.
var dialer = FuzzFixtures.handshake(.dialer)
var listener = FuzzFixtures.handshake(.listener)
let hello = need(dialer.start(), "a hello")
guard case .send(let reply) = try listener.receive(hello), case .send(let identity) = try dialer.receive(reply),
    case .established(_, let listenerIdentity?) = try listener.receive(identity)
else { fatalError("the handshake failed") }
try write("FuzzHandshake", "0-dialer-hello", [0] + hello)
try write("FuzzHandshake", "1-listener-hello", [1] + reply)
try write("FuzzHandshake", "2-dialer-identity", [2] + identity)
try write("FuzzHandshake", "3-listener-identity", [3] + listenerIdentity)
let someKey = FuzzFixtures.author(FuzzFixtures.keys(9)).bytes
let succession = SuccessionProof(
    predecessor: FuzzFixtures.author(FuzzFixtures.keys(9)),
    signature: FuzzFixtures.keys(9).sign(DeviceSuccession.message(successor: FuzzFixtures.author(FuzzFixtures.handshakeKeys(.dialer)))))
try write("FuzzHandshake", "4-dialer-identity-plaintext", [4] + someKey + [UInt8](repeating: 1, count: 64))
try write("FuzzHandshake", "5-listener-identity-plaintext", [5] + someKey + [UInt8](repeating: 2, count: 64) + succession.bytes)
try write("FuzzHandshake", "6-dialer-lineage-of-one", [6] + succession.bytes)
try write("FuzzHandshake", "7-listener-lineage-none", [7])
try write("FuzzHandshake", "8-removal-by-the-organizer", [8] + FuzzFixtures.removal(signedBy: FuzzFixtures.organizer).encoded())
try write("FuzzHandshake", "8-removal-by-a-member", [8] + FuzzFixtures.removal(signedBy: FuzzFixtures.keys(7)).encoded())

// Lineages: a chain as the wire carries it, and worlds of real and broken successions.
try write("FuzzLineage", "wire-chain-of-one", [0] + succession.bytes)
try write("FuzzLineage", "wire-chain-too-long", [0] + (0..<5).flatMap { _ in succession.bytes })
try write("FuzzLineage", "world-real-chain", [1, 0b0000_0100, 0, 2, 0, 0b1_1001, 0b1_1010])
try write("FuzzLineage", "world-removed-predecessor", [1, 0b0000_0010, 0b0000_0100, 3, 0, 0b1_1001, 0b1_1010, 0b1_1011])
try write("FuzzLineage", "world-broken-then-real", [1, 0b1111_1111, 0, 4, 5, 0b1_0001, 0b1_1010])

// Invitations: a token, a join request, the member's answer and a refusal.
let invitation = FuzzFixtures.invitation
try write("FuzzInvite", "token", [0] + Array(invitation.token.utf8))
try write("FuzzInvite", "token-with-spaces", [0] + Array("  \(invitation.token)\n".utf8))
try write("FuzzInvite", "request", [1] + JoinRequest(invitation: invitation, device: FuzzFixtures.author(FuzzFixtures.joiner)).bytes)
let member = try Replica.create(at: output.appendingPathComponent(".member"), name: "member", kind: .laptop, keys: FuzzFixtures.keys(9))
try member.join(FuzzFixtures.group)
_ = try member.issueInvitation(secret: invitation.secret, expiresAt: UInt64(Int64.max), uses: 1)
let answer = need(
    try member.admit(JoinRequest(invitation: invitation, device: FuzzFixtures.author(FuzzFixtures.joiner))).reply, "an answer")
try write("FuzzInvite", "answer", [2] + answer)
let refusal = need(
    try member.admit(JoinRequest(invitation: invitation, device: FuzzFixtures.author(FuzzFixtures.keys(10)))).reply, "a refusal")
try write("FuzzInvite", "refusal", [2] + refusal)
try member.close()
try FileManager.default.removeItem(at: output.appendingPathComponent(".member"))

// FuzzDiscoveryRecord: a record as `serve` advertises it, one with a join tag, and another service's TXT.
let discoveryNonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
try write("FuzzDiscoveryRecord", "record", DiscoveryRecord(group: FuzzFixtures.group, nonce: discoveryNonce, discovers: true).txt.wire)
try write(
    "FuzzDiscoveryRecord", "record-with-join-tags",
    DiscoveryRecord(
        group: FuzzFixtures.group, nonce: discoveryNonce, revision: 3, discovers: false, invitationKeys: [FuzzFixtures.invitation.key]
    ).txt.wire)
try write("FuzzDiscoveryRecord", "foreign", ServiceTXT(["txtvers": "1", "path": "/", "model": "x"]).wire)

// FuzzBucketListing: a page of a listing as S3 writes one, and a truncated page of common prefixes.
try write(
    "FuzzBucketListing", "page",
    Array(
        (#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>league</Name><Prefix>2026/hyzer/</Prefix>"#
            + #"<KeyCount>2</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated><Contents><Key>2026/hyzer/g/a/0f.hzb</Key>"#
            + #"<LastModified>2026-12-07T10:00:00.000Z</LastModified><ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag>"#
            + #"<Size>1434</Size><StorageClass>STANDARD</StorageClass></Contents><Contents><Key>2026/hyzer/g/a/vector-1e.hzv</Key>"#
            + #"<LastModified>2026-12-07T10:00:01.000Z</LastModified><ETag>&quot;d41d8cd98f00b204e9800998ecf8427e&quot;</ETag>"#
            + #"<Size>212</Size><StorageClass>STANDARD</StorageClass></Contents></ListBucketResult>"#).utf8))
try write(
    "FuzzBucketListing", "truncated",
    Array(
        (#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
            + #"<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>league</Name><Prefix>2026/hyzer/g/</Prefix>"#
            + #"<Delimiter>/</Delimiter><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr</NextContinuationToken>"#
            + #"<CommonPrefixes><Prefix>2026/hyzer/g/a/</Prefix></CommonPrefixes><CommonPrefixes><Prefix>2026/hyzer/g/joins/</Prefix>"#
            + #"</CommonPrefixes></ListBucketResult>"#).utf8))

print("wrote the corpora under \(output.path)")
