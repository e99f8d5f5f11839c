import FuzzDriver
import FuzzSupport
import HyzerCrypto
import HyzerKit

@testable import HyzerSync

/// The handshake's `receive` in each state that waits for a message. The input's first byte
/// picks the state and what the rest is:
/// - 0–3: the message as a peer sends it, to the listener before the dialer's hello, the dialer
///   before the listener's hello, the listener before the dialer's identity, the dialer before
///   the listener's identity;
/// - 4–5: the plaintext of the identity message the listener (4) or the dialer (5) waits for,
///   sealed here with the box key that state expects, so the structures inside the encrypted
///   box (the peer's key, its signature, its lineage) are reached;
/// - 6–7: as 4–5, after the real peer's key and its valid signature over the transcript: the
///   rest is the lineage the peer shows, so the lineage decoder and the admission rule are
///   reached. A lineage of whole successions, at most `SuccessionProof.chainMax`, must be
///   admitted: the fixture group has one epoch and removed nobody.
/// - 8: the plaintext of a listener's refusal (`RemovalProof`), sealed with the key of the
///   dialer's refusal box, to a dialer of a group organized by `FuzzFixtures.organizer`: the
///   dialer believes it removed exactly when the bytes are that organizer's signed removal of
///   the dialer, and never believes a removal signed by any other key.
/// The states are reached once per process by a real dialer and listener with fixed keys
/// (`FuzzFixtures.handshake`) and copied for each input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let selector = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    switch selector % 9 {
    case let state where state < 4:
        var handshake = waiting[Int(state)]
        _ = try? handshake.receive(rest)
    case 8:
        var handshake = refusedDialer
        guard case .awaitingListenerIdentity(_, let keys) = handshake.state else { fatalError("the fixture dialer waits for an identity") }
        let nonce = [UInt8](repeating: 0, count: SecretBox.nonceBytes)
        let believed: Bool
        do {
            _ = try handshake.receive(SecretBox.seal(rest, key: keys.listenerRefusal, nonce: nonce))
            believed = false
        } catch {
            believed = error == .removedFromGroup(FuzzFixtures.author(FuzzFixtures.handshakeKeys(.dialer)))
        }
        let proof = RemovalProof(decoding: rest, group: FuzzFixtures.organizedGroup.id)
        let dialer = FuzzFixtures.author(FuzzFixtures.handshakeKeys(.dialer))
        FuzzFixtures.require(
            believed == (proof?.device == dialer && proof?.segment.author == FuzzFixtures.author(FuzzFixtures.organizer)),
            "a removal is believed exactly when the organizer signed it for this device")
    case let mode:
        let role: Handshake.Role = mode % 2 == 0 ? .listener : .dialer
        var handshake = role == .listener ? waiting[2] : waiting[3]
        let signed = mode >= 6
        let plaintext = signed ? identity(awaitedBy: handshake) + rest : rest
        let step = try? handshake.receive(sealed(plaintext, for: handshake))
        if signed, rest.count % SuccessionProof.byteCount == 0, rest.count / SuccessionProof.byteCount <= SuccessionProof.chainMax {
            guard case .established(let keys, _)? = step else {
                FuzzFixtures.require(false, "a real identity with a well-formed lineage is admitted")
                return 0
            }
            let peer = FuzzFixtures.author(FuzzFixtures.handshakeKeys(role == .listener ? .dialer : .listener))
            FuzzFixtures.require(keys.peer == peer, "the admitted peer is the one that signed")
        }
    }
    return 0
}

/// Listener before the dialer's hello, dialer before the listener's, listener before the
/// dialer's identity, dialer before the listener's.
nonisolated(unsafe) private let waiting: [Handshake] = {
    var dialer = FuzzFixtures.handshake(.dialer)
    var listener = FuzzFixtures.handshake(.listener)
    let listenerHello = listener
    let hello = dialer.start()!
    let dialerHello = dialer
    guard case .send(let reply) = FuzzFixtures.require({ try listener.receive(hello) }),
        case .send = FuzzFixtures.require({ try dialer.receive(reply) })
    else {
        fatalError("the fixture handshake failed")
    }
    return [listenerHello, dialerHello, listener, dialer]
}()

/// A dialer of the group `FuzzFixtures.organizer` organizes, waiting for the listener's identity.
nonisolated(unsafe) private let refusedDialer: Handshake = {
    var dialer = FuzzFixtures.handshake(.dialer, group: FuzzFixtures.organizedGroup)
    var listener = FuzzFixtures.handshake(.listener, group: FuzzFixtures.organizedGroup)
    guard case .send(let reply) = FuzzFixtures.require({ try listener.receive(dialer.start()!) }),
        case .send = FuzzFixtures.require({ try dialer.receive(reply) })
    else {
        fatalError("the fixture handshake failed")
    }
    return dialer
}()

/// `plaintext` sealed as the identity message `handshake` waits for.
private func sealed(_ plaintext: [UInt8], for handshake: Handshake) -> [UInt8] {
    let nonce = [UInt8](repeating: 0, count: SecretBox.nonceBytes)
    switch handshake.state {
    case .awaitingDialerIdentity(_, let keys): return SecretBox.seal(plaintext, key: keys.dialerBox, nonce: nonce)
    case .awaitingListenerIdentity(_, let keys): return SecretBox.seal(plaintext, key: keys.listenerBox, nonce: nonce)
    default: fatalError("the fixture does not wait for an identity")
    }
}

/// The real peer's key and its signature over the transcript, as the identity that `handshake`
/// waits for begins.
private func identity(awaitedBy handshake: Handshake) -> [UInt8] {
    switch handshake.state {
    case .awaitingDialerIdentity(let transcript, _):
        let keys = FuzzFixtures.handshakeKeys(.dialer)
        return keys.publicKey + keys.sign(Array("hyzer-hs/v1/dialer".utf8) + Blake2b.hash256(transcript))
    case .awaitingListenerIdentity(let transcript, _):
        let keys = FuzzFixtures.handshakeKeys(.listener)
        let dialer = FuzzFixtures.handshakeKeys(.dialer).publicKey
        return keys.publicKey + keys.sign(Array("hyzer-hs/v1/listener".utf8) + Blake2b.hash256(transcript) + dialer)
    default:
        fatalError("the fixture does not wait for an identity")
    }
}

FuzzDriver.run(fuzz)
