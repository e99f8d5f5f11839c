import FuzzDriver
import FuzzSupport
import HyzerCrypto
import HyzerDomain

@testable import HyzerKit

/// The lineage a handshake shows (docs/sync-protocol.md, "Lineage") and the admission rule that
/// reads it. The input's first byte picks the mode:
/// - even: the rest is a chain as the wire carries it: whatever `SuccessionProof.chain(decoding:)`
///   decodes is at most `chainMax` long and encodes to the very same bytes;
/// - odd: the rest describes a world of eight fixed devices: a byte of recipients of the newest
///   epoch and one of removed devices (a bit per device), the number of epochs held (1–4), the
///   peer, then a byte per succession the peer shows: its predecessor (low 3 bits), whether the
///   signature is the predecessor's (bit 3), and whether it names the right successor (bit 4).
///   `admits` and `isRemoved` must agree, at every epoch, with the rule as docs/security.md
///   states it: the line is the peer and each predecessor whose succession is real, up to the
///   first that is not; a removed device on the line is refused; an older epoch than the newest
///   needs a recipient on the line; an epoch not held is refused.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let mode = bytes.first else { return 0 }
    if mode % 2 == 0 {
        let wire = bytes.dropFirst()
        if let chain = SuccessionProof.chain(decoding: wire) {
            FuzzFixtures.require(chain.count <= SuccessionProof.chainMax, "a chain is at most chainMax long")
            FuzzFixtures.require(chain.flatMap(\.bytes) == Array(wire), "a decoded chain encodes to its bytes")
        }
        return 0
    }
    guard bytes.count >= 5 else { return 0 }
    let recipients = Set(devices.indices.filter { bytes[1] >> $0 & 1 == 1 }.map { devices[$0] })
    let removed = Set(devices.indices.filter { bytes[2] >> $0 & 1 == 1 }.map { devices[$0] })
    let epochs = UInt32(bytes[3] % 4) + 1
    let peer = devices[Int(bytes[4] % 8)]
    var lineage: [SuccessionProof] = []
    var line = [peer]
    var broken = false
    for step in bytes.dropFirst(5).prefix(SuccessionProof.chainMax) {
        let predecessor = Int(step % 8)
        let real = step & 0b1000 != 0
        let rightSuccessor = step & 0b1_0000 != 0
        let successor = rightSuccessor ? lineage.isEmpty ? peer : lineage[lineage.count - 1].predecessor : stranger
        var signature = signatures[predecessor][successor]!
        if !real { signature[Int(step) % 64] ^= 0x40 }
        lineage.append(SuccessionProof(predecessor: devices[predecessor], signature: signature))
        if !broken, real, rightSuccessor { line.append(devices[predecessor]) } else { broken = true }
    }
    let group = GroupMembership(
        id: FuzzFixtures.group.id, secrets: Dictionary(uniqueKeysWithValues: (0..<epochs).map { ($0, FuzzFixtures.group.secret) }),
        recipients: recipients, removed: removed, lineage: [])
    let isRemoved = !removed.isDisjoint(with: line)
    FuzzFixtures.require(group.isRemoved(peer, lineage: lineage) == isRemoved, "isRemoved follows the real successions")
    for epoch in 0...epochs {
        let expected = !isRemoved && (epoch == epochs - 1 || (epoch < epochs - 1 && !recipients.isDisjoint(with: line)))
        FuzzFixtures.require(
            group.admits(peer, epoch: epoch, lineage: lineage) == expected, "admits(epoch \(epoch)) follows the rule for line \(line)")
    }
    return 0
}

/// The eight devices of the world, and one that is none of them.
private let devices = (0..<8).map { FuzzFixtures.author(FuzzFixtures.keys(UInt8(20 + $0))) }
private let stranger = FuzzFixtures.author(FuzzFixtures.keys(30))

/// Each device's real succession signature for each successor, made once per process.
private let signatures: [[AuthorID: [UInt8]]] = (0..<8).map { index in
    let keys = FuzzFixtures.keys(UInt8(20 + index))
    return Dictionary(uniqueKeysWithValues: (devices + [stranger]).map { ($0, keys.sign(DeviceSuccession.message(successor: $0))) })
}

FuzzDriver.run(fuzz)
