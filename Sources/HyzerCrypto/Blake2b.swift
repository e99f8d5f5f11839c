import CSodium

/// BLAKE2b hashing (libsodium's generic hash).
public enum Blake2b {
    /// The 32-byte BLAKE2b-256 hash of `message`, keyed when `key` is given (16 to 64 bytes).
    public static func hash256<Message: ContiguousBytes>(_ message: Message, key: [UInt8] = []) -> [UInt8] {
        Sodium.ready()
        var out = [UInt8](repeating: 0, count: 32)
        message.withUnsafeBytes { raw in
            _ = crypto_generichash(
                &out, 32, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(raw.count),
                key.isEmpty ? nil : key, key.count)
        }
        return out
    }

    /// An incremental BLAKE2b-256 hash, for hashing many pieces without joining them.
    /// libsodium's state is 64-byte aligned, which Swift imports as opaque: it lives here in
    /// memory this value owns.
    public struct Hasher: ~Copyable {
        private let state: UnsafeMutableRawPointer

        public init(key: [UInt8] = []) {
            Sodium.ready()
            state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
            _ = crypto_generichash_init(OpaquePointer(state), key.isEmpty ? nil : key, key.count, 32)
        }

        public mutating func update<Message: ContiguousBytes>(_ piece: Message) {
            piece.withUnsafeBytes { raw in
                _ = crypto_generichash_update(
                    OpaquePointer(state), raw.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(raw.count))
            }
        }

        public consuming func finalize() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: 32)
            _ = crypto_generichash_final(OpaquePointer(state), &out, 32)
            return out
        }

        deinit { state.deallocate() }
    }
}
