// passcoded's methods for the data key, sealing and entry flows. A correct passcode is answered
// with the data key ('ay', in a reply marked sensitive: sd-bus wipes it when freed); the host's
// library holds it for its own handle and seals there (ServiceClient+Key.swift), so no sealing
// method is offered and the key is never written by the client. Each call runs on the uid's
// kept handle, as Verify does: a wrong passcode is counted exactly as Verify counts it
// (durably, before the answer), repeats of one wrong guess included.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    // UnlockKey: passcode_unlock_key, the use recorded in the success's transaction.
    // VerifyKey: passcode_verify and a flow's passcode step (recorded when the host seals or
    // takes the flow's key: MarkKeyUsed).
    func handleUnlockKey(_ call: BusCall, appID app: AppID, passcode code: SecretBytes) throws -> Prepared {
        verifyReleasingKey(call.caller, app, code, handingOut: true)
    }

    func handleVerifyKey(_ call: BusCall, appID app: AppID, passcode code: SecretBytes) throws -> Prepared {
        verifyReleasingKey(call.caller, app, code, handingOut: false)
    }

    private func verifyReleasingKey(_ caller: uid_t, _ app: AppID, _ code: SecretBytes, handingOut: Bool) -> Prepared {
        let stores = self.stores
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { [.key(try $0.verify(code, handingOutKey: handingOut))] }
        }
    }

    func handleSetPasscodeKey(_ call: BusCall, appID app: AppID, passcode code: SecretBytes) throws -> Prepared {
        try Service.checkEnrolment(caller: call.caller, app: app)
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                // No recipient of an earlier passcode stays (the same transaction as the passcode).
                return [.key(try s.setPasscode(code))]
            }
        }
    }

}
