// passcoded's methods for lock, app events, biometric policy and the security log.
import CPasscodeBus
import Glibc
import Passcode
import PasscodeCore

extension Service {
    /// The call `member` of this area, read and ready to run; nil when `member` is not one of them.
    func prepareLock(_ member: String, _ m: OpaquePointer, _ caller: uid_t) throws -> Prepared? {
        switch member {
        default: return nil
        }
    }
}
