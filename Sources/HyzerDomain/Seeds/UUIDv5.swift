import Foundation

extension UUID {
    /// The name-based UUID, version 5 (RFC 9562 §5.5): the first 16 bytes of
    /// SHA-1(namespace bytes ‖ UTF-8 name), with the version nibble set to 5 and the variant
    /// bits to `10`. The same namespace and name give the same id on every replica.
    ///
    /// ```swift
    /// let dns = UUID(uuidString: "6ba7b810-9dad-11d1-80b4-00c04fd430c8")!
    /// UUID(v5: "www.example.com", namespace: dns)  // 2ed6657d-e927-568b-95e1-2665a8aea6a2
    /// ```
    public init(v5 name: String, namespace: UUID) {
        var message = withUnsafeBytes(of: namespace.uuid) { Array($0) }
        message.append(contentsOf: name.utf8)
        var bytes = Array(SHA1.digest(message).prefix(16))
        bytes[6] = bytes[6] & 0x0F | 0x50
        bytes[8] = bytes[8] & 0x3F | 0x80
        self.init(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            )
        )
    }
}
