// passcoded's methods for callbacks and hooks asked of the host.
import CPasscodeBus
import Glibc
import Passcode
import PasscodeCore

extension Service {
    /// The call `member` of this area, read and ready to run; nil when `member` is not one of them.
    func prepareHooks(_ member: String, _ m: OpaquePointer, _ caller: uid_t) throws -> Prepared? {
        switch member {
        default: return nil
        }
    }
}
