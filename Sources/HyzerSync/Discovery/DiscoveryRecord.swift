import Foundation
import HyzerCrypto
import HyzerDomain
import HyzerKit

/// What a device advertises in its TXT record (docs/discovery.md, "The TXT record"), and how a
/// member recognises its group in one:
///
/// - `v`: the protocol version of discovery, 1.
/// - `n`: a nonce, 8 random bytes drawn afresh by each `serve`, in hex.
/// - `r`: the record's revision within that `serve`, from 0: a new record (a rekey, an
///   invitation issued or used up) is advertised under a new name, so that every browser
///   resolves it afresh rather than keeping what it read of the old one.
/// - `g`: the group tag: the first 8 bytes of BLAKE2b-256 of the nonce and the revision
///   (4 bytes, big-endian) keyed with a subkey of the newest epoch's group secret
///   (`crypto_kdf`, context `hyzrdisc`, id 1), in hex.
/// - `d`: `1` when the advertiser also dials the members it discovers.
/// - `j`: join tags, comma-separated: the same hash keyed with a subkey of each live
///   invitation's proof key (context `hyzrdisc`, id 2), so that a device holding the token
///   finds a member that can admit it.
///
/// Without the group secret the tag is 8 random-looking bytes that differ from device to
/// device and run to run: it names no group, device or owner, links no two services, and
/// changes with the epoch, so a removed device stops recognising it.
public struct DiscoveryRecord: Equatable, Sendable {
    /// The version this build writes and reads.
    public static let version = "1"
    /// The bytes of a nonce and of a tag.
    public static let tagBytes = 8
    /// The most join tags written or read.
    public static let joinTagsMax = 8

    /// The advertiser's nonce.
    public let nonce: [UInt8]
    /// The record's revision.
    public let revision: UInt32
    /// The group tag.
    public let tag: [UInt8]
    /// Whether the advertiser dials the members it discovers.
    public let discovers: Bool
    /// Tags of the invitations the advertiser can admit with.
    public let joinTags: [[UInt8]]

    /// The record of a device in `group` (tagged with its newest epoch) that admits with the
    /// invitations whose proof keys are `invitationKeys` (at most `joinTagsMax` are written; a
    /// key that is not 32 bytes is left out).
    public init(group: GroupMembership, nonce: [UInt8], revision: UInt32 = 0, discovers: Bool, invitationKeys: [[UInt8]] = []) {
        self.nonce = nonce
        self.revision = revision
        let tagged = Self.tagged(nonce, revision)
        tag = Self.tag(tagged, key: Self.groupKey(group.secret))
        self.discovers = discovers
        joinTags = invitationKeys.lazy.filter { $0.count == Invitation.secretBytes }.prefix(Self.joinTagsMax)
            .map { Self.tag(tagged, key: Self.joinKey($0)) }
    }

    /// Reads a record; `nil` for one of another version, or without a well-formed nonce and tag.
    public init?(_ txt: ServiceTXT) {
        guard txt["v"] == Self.version, let nonce = txt["n"].flatMap(Self.tagBytes(hex:)), let tag = txt["g"].flatMap(Self.tagBytes(hex:))
        else { return nil }
        guard let revision = txt["r"].flatMap({ $0.utf8.count <= 10 ? UInt32($0) : nil }) else { return nil }
        self.nonce = nonce
        self.revision = revision
        self.tag = tag
        discovers = txt["d"] == "1"
        joinTags = (txt["j"] ?? "").split(separator: ",", omittingEmptySubsequences: true).prefix(Self.joinTagsMax)
            .compactMap { Self.tagBytes(hex: String($0)) }
    }

    /// The record as TXT entries.
    public var txt: ServiceTXT {
        var entries = ["v": Self.version, "n": Hex.encode(nonce), "r": "\(revision)", "g": Hex.encode(tag)]
        if discovers { entries["d"] = "1" }
        if !joinTags.isEmpty { entries["j"] = joinTags.map(Hex.encode).joined(separator: ",") }
        return ServiceTXT(entries)
    }

    /// Whether the tag was made with a secret of an epoch `group` holds: the advertiser is a
    /// member, or holds a copied record (which the handshake then refuses).
    public func isTagged(for group: GroupMembership) -> Bool {
        let tagged = Self.tagged(nonce, revision)
        return group.secrets.values.contains { Self.tag(tagged, key: Self.groupKey($0)) == tag }
    }

    /// Whether the advertiser says it can admit with `invitation`.
    public func admits(_ invitation: Invitation) -> Bool {
        let expected = Self.tag(Self.tagged(nonce, revision), key: Self.joinKey(invitation.key))
        return joinTags.contains(expected)
    }

    /// The instance name a `serve` advertises the record under: `hyzer-`, the nonce's first 4
    /// bytes in hex, `-` and the revision. A responder refuses a second service of that name on
    /// the LAN, so a copy of a record published through one runs under another name.
    public var instanceName: String { "hyzer-" + Hex.encode(nonce.prefix(4)) + "-\(revision)" }

    /// A fresh nonce.
    public static func makeNonce() -> [UInt8] { SecureRandom.bytes(tagBytes) }

    static func groupKey(_ secret: [UInt8]) -> [UInt8] { KeyDerivation.subkey(of: secret, context: "hyzrdisc", id: 1) }
    static func joinKey(_ invitationKey: [UInt8]) -> [UInt8] { KeyDerivation.subkey(of: invitationKey, context: "hyzrdisc", id: 2) }

    static func tag(_ message: [UInt8], key: [UInt8]) -> [UInt8] { Array(Blake2b.hash256(message, key: key).prefix(tagBytes)) }

    /// What a tag is the hash of: the nonce, then the revision, big-endian.
    private static func tagged(_ nonce: [UInt8], _ revision: UInt32) -> [UInt8] {
        nonce + withUnsafeBytes(of: revision.bigEndian, Array.init)
    }

    private static func tagBytes(hex: String) -> [UInt8]? {
        guard hex.utf8.count == tagBytes * 2, let bytes = Hex.decode(hex) else { return nil }
        return bytes
    }
}
