import FuzzDriver
import FuzzSupport
import HyzerCrypto
import HyzerKit
import HyzerSync

/// The handshake's `receive` in each state that waits for a message: the input's first byte
/// picks the state, the rest is the message. The states are reached once per process by a
/// real dialer and listener and copied for each input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzDriver.bytes(data, size)
    guard let state = bytes.first else { return 0 }
    var handshake = waiting[Int(state) % waiting.count]
    _ = try? handshake.receive(Array(bytes.dropFirst()))
    return 0
}

/// Listener before the dialer's hello, dialer before the listener's, listener before the
/// dialer's identity, dialer before the listener's.
nonisolated(unsafe) private let waiting: [Handshake] = {
    func party(_ role: Handshake.Role, _ keys: SigningKeyPair) -> Handshake {
        Handshake(role: role, author: FuzzFixtures.author(keys), sign: { keys.sign($0) }, group: FuzzFixtures.group)
    }
    var dialer = party(.dialer, FuzzFixtures.keys(4))
    var listener = party(.listener, FuzzFixtures.keys(5))
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

FuzzDriver.run(fuzz)
