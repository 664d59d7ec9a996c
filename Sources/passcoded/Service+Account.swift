// passcoded's methods for reset codes, the account, device sessions and the recovery key.
import CPasscodeBus
import Glibc
import Passcode
import PasscodeCore

extension Service {
    /// The call `member` of this area, read and ready to run; nil when `member` is not one of them.
    func prepareAccount(_ member: String, _ m: OpaquePointer, _ caller: uid_t) throws -> Prepared? {
        switch member {
        default: return nil
        }
    }
}
