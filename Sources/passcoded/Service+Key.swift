// passcoded's methods for the data key, sealing and entry flows. A correct passcode is answered
// with the data key ('ay', in a reply marked sensitive: sd-bus wipes it when freed); the host's
// library holds it for its own handle and seals there (ServiceClient+Key.swift), so no sealing
// method is offered and the key is never written by the client. Each call runs on the uid's
// kept handle, as Verify does: a wrong passcode is counted exactly as Verify counts it
// (durably, before the answer), repeats of one wrong guess included.
import CPasscodeBus
import Glibc
import Passcode
import PasscodeCore

extension Service {
    /// The call `member` of this area, read and ready to run; nil when `member` is not one of them.
    func prepareKey(_ member: String, _ m: OpaquePointer, _ caller: uid_t) throws -> Prepared? {
        let stores = self.stores
        switch member {
        case "UnlockKey", "VerifyKey":
            // UnlockKey: passcode_unlock_key, the use recorded in the success's transaction.
            // VerifyKey: passcode_verify and a flow's passcode step (recorded when the host seals
            // or takes the flow's key: MarkKeyUsed).
            let app = try readString(m, "app_id")
            let code = try readSecret(m, "passcode")
            let handingOut = member == "UnlockKey"
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { [.key(try $0.verify(code, handingOutKey: handingOut))] }
            }
        case "SetPasscodeKey":
            let app = try readString(m, "app_id")
            let code = try readSecret(m, "passcode")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { [.key(try $0.setPasscode(code))] }
            }
        case "ChangePasscodeKey":
            let app = try readString(m, "app_id")
            let current = try readSecret(m, "current")
            let new = try readSecret(m, "new_passcode")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { [.key(try $0.changePasscodeReturningKey(current: current, new: new))] }
            }
        case "DisablePasscodeKey":
            let app = try readString(m, "app_id")
            let current = try readSecret(m, "current")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { [.key(try $0.disable(current: current))] }
            }
        case "MarkKeyUsed":
            let app = try readString(m, "app_id")
            return Prepared(uid: caller) {
                try stores.withStore(uid: caller, appID: app) { try $0.flowKeyTaken() }
                return []
            }
        default: return nil
        }
    }
}
