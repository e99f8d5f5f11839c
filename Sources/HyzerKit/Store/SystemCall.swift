#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The POSIX calls whose names a declaration of ours shadows (`KeyFile.read`, `Replica.open`,
/// `DirectoryFolder.read`), spelled once for both C libraries: Glibc's on Linux, Darwin's on
/// Apple platforms (docs/architecture.md, "Platform"). Each is the plain system call.
package enum SystemCall {
    /// `open(2)` with a mode, for a file created here.
    package static func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if canImport(Glibc)
            Glibc.open(path, flags, mode)
        #elseif canImport(Darwin)
            Darwin.open(path, flags, mode)
        #endif
    }

    /// `read(2)`: the bytes read, 0 at the end, -1 with `errno` on failure.
    package static func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.read(descriptor, buffer, count)
        #elseif canImport(Darwin)
            Darwin.read(descriptor, buffer, count)
        #endif
    }

    /// `write(2)`: the bytes written, -1 with `errno` on failure.
    package static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, buffer, count)
        #elseif canImport(Darwin)
            Darwin.write(descriptor, buffer, count)
        #endif
    }

    /// `close(2)`.
    @discardableResult
    package static func close(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
            Glibc.close(descriptor)
        #elseif canImport(Darwin)
            Darwin.close(descriptor)
        #endif
    }
}
