import CSodium

/// libsodium's one-time initialisation. Every entry point of this module calls
/// `Sodium.ready()` first; the library makes `sodium_init` safe to call repeatedly.
enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    static func ready() {
        precondition(initialised, "libsodium failed to initialise")
    }
}
