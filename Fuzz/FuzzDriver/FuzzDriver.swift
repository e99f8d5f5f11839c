import CLibFuzzer
import Foundation

/// Runs a fuzz target under libFuzzer: each target's `main.swift` ends with `FuzzDriver.run(fuzz)`.
public enum FuzzDriver {
    /// Hands the process and its arguments to libFuzzer, which calls `target` on each input.
    public static func run(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, target))
    }

    /// The input as bytes.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: data, count: size))
    }
}
