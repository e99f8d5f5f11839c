import CSodium

/// One direction of an encrypted, authenticated, ordered message stream (libsodium's
/// `crypto_secretstream_xchacha20poly1305`): each message is sealed with a key that ratchets,
/// so a reordered, replayed, dropped or changed message fails to open.
public enum SecretStream {
    public static let keyBytes = Int(crypto_secretstream_xchacha20poly1305_KEYBYTES)
    public static let headerBytes = Int(crypto_secretstream_xchacha20poly1305_HEADERBYTES)
    public static let overheadBytes = Int(crypto_secretstream_xchacha20poly1305_ABYTES)

    /// The sending side.
    public struct Sender: Sendable {
        private var state = crypto_secretstream_xchacha20poly1305_state()
        /// Sent once, before the first message.
        public let header: [UInt8]

        public init(key: [UInt8]) {
            precondition(key.count == SecretStream.keyBytes, "a stream key has 32 bytes")
            Sodium.ready()
            var header = [UInt8](repeating: 0, count: SecretStream.headerBytes)
            _ = crypto_secretstream_xchacha20poly1305_init_push(&state, &header, key)
            self.header = header
        }

        public mutating func seal(_ message: [UInt8]) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: message.count + SecretStream.overheadBytes)
            var written: UInt64 = 0
            _ = crypto_secretstream_xchacha20poly1305_push(
                &state, &out, &written, message, UInt64(message.count), nil, 0,
                UInt8(crypto_secretstream_xchacha20poly1305_TAG_MESSAGE))
            return Array(out.prefix(Int(written)))
        }
    }

    /// The receiving side.
    public struct Receiver: Sendable {
        private var state = crypto_secretstream_xchacha20poly1305_state()

        /// `nil` when the header is not one.
        public init?(key: [UInt8], header: [UInt8]) {
            guard key.count == SecretStream.keyBytes, header.count == SecretStream.headerBytes else { return nil }
            Sodium.ready()
            guard crypto_secretstream_xchacha20poly1305_init_pull(&state, header, key) == 0 else { return nil }
        }

        /// The next message, or `nil` when it was changed, forged, replayed or out of order.
        public mutating func open(_ sealed: [UInt8]) -> [UInt8]? {
            guard sealed.count >= SecretStream.overheadBytes else { return nil }
            var out = [UInt8](repeating: 0, count: sealed.count - SecretStream.overheadBytes)
            var written: UInt64 = 0
            var tag: UInt8 = 0
            guard
                crypto_secretstream_xchacha20poly1305_pull(
                    &state, &out, &written, &tag, sealed, UInt64(sealed.count), nil, 0) == 0
            else { return nil }
            return Array(out.prefix(Int(written)))
        }
    }
}
