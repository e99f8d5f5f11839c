import FuzzDriver
import FuzzSupport
import HyzerSync

/// The token `group join` reads. A token that is accepted names a group whose own token is
/// accepted as the same group.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: FuzzDriver.bytes(data, size), as: UTF8.self)
    guard let group = try? GroupInvite.membership(fromToken: text) else { return 0 }
    FuzzFixtures.require(
        (try? GroupInvite.membership(fromToken: GroupInvite.token(for: group))) == group, "a group's token names the group")
    return 0
}

FuzzDriver.run(fuzz)
