// Another user's store, named by uid (the User* methods): what pam_passcode(8) and passcodectl(8)
// reach. Root may name any uid, any other caller only its own. The login stores (`login`, and
// `login.<name>` for a PAM stack of its own) are a machine's: a passcode there is enrolled,
// replaced without the current one, or removed without it by root alone, so a user's own process
// cannot enrol the passcode its PAM stack then accepts (Service.checkEnrolment, also asked by
// the caller's own SetPasscode, SetPasscodeKey, ResetComplete* and DeleteAccount). Nor can it
// leave a login store without its passcode unless it has the passcode: Forgot requires root's
// reset instead (Service+Account.swift), RemoveStore is root's (checkLoginStoreRemoval), and the
// forced-logout action is refused there (checkMaxFailureAction).
import Glibc
import PasscodeBus
import PasscodeCore

extension Service {
    /// Whether `app` is a login store: `login` or `login.<anything>`.
    static func isLoginStore(_ app: AppID) -> Bool {
        app.name == "login" || app.name.hasPrefix("login.")
    }

    static let notRoot = PasscodeError.permission("only root may name another uid")

    /// A passcode of a login store is set, replaced without the current one, or removed with the
    /// whole account, by root only.
    static func checkEnrolment(caller: uid_t, app: AppID) throws {
        guard caller != 0, isLoginStore(app) else { return }
        throw PasscodeError.permission("the passcode of the \(app) store is set or removed without it by root only (passcodectl)")
    }

    /// A login store is removed by root only: without one, pam_passcode's `nullok` passes the
    /// user, so a user's own process may not remove it, with the passcode or without.
    static func checkLoginStoreRemoval(caller: uid_t, app: AppID) throws {
        guard caller != 0, isLoginStore(app) else { return }
        throw PasscodeError.permission("the \(app) store is removed by root only")
    }

    /// Nor its passcode: no process of the user turns a login store that has a PIN into one that
    /// has none, not even with the PIN (`RemovePasscode`, `UserRemovePasscode`). Root's
    /// `passcodectl remove` removes it, and the store with it (`handleUserRemovePasscode`).
    static func checkLoginPasscodeRemoval(caller: uid_t, app: AppID) throws {
        guard caller != 0, isLoginStore(app) else { return }
        throw PasscodeError.permission("the passcode of the \(app) store is removed by root only (passcodectl remove)")
    }

    /// A login store's failures never remove its passcode: the forced-logout action, which
    /// removes it at the next attempt once a reset is required, is refused there (the user's own
    /// process could then spend that attempt and leave the store without a PIN).
    static func checkMaxFailureAction(app: AppID, setting: Setting, value: Int64) throws {
        guard isLoginStore(app), setting == .maxFailureAction, value == Int64(MaxFailureAction.forcedLogout.rawValue) else { return }
        throw PasscodeError.permission("a login store requires a reset after its last failure; it never logs out (max_failure_action)")
    }

    /// Root names any uid; anyone else only its own.
    static func checkNamed(_ uid: UInt32, by caller: uid_t) throws {
        guard caller == 0 || caller == uid else { throw notRoot }
    }

    func handleUserGetState(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            // pam_passcode's first question: a lockout from before a reboot starts counting now.
            try Service.settleLoginLockout(stores, uid: target, app: app)
            return try stores.withStoreForQuery(uid: target, appID: app) { s in
                [.bool(try s.isPasscodeSet()), .uint32(UInt32(clamping: try s.failedAttempts())),
                 .int64(try s.lockoutRemainingSeconds()), .bool(try s.isResetRequired()),
                 .int32(Int32(clamping: try s.passcodeLength()))]
            }
        }
    }

    func handleUserVerify(_ call: BusCall, appID app: AppID, uid: UInt32, passcode code: SecretBytes) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            try stores.withStore(uid: target, appID: app) { _ = try $0.verify(code) }
            return []
        }
    }

    func handleUserSetPasscode(_ call: BusCall, appID app: AppID, uid: UInt32, passcode code: SecretBytes) throws -> Prepared {
        guard call.caller == 0 else {
            throw PasscodeError.permission("only root may set a passcode by uid")
        }
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            try stores.withStore(uid: target, appID: app) { s in
                try s.enrol(code)  // no recipient of an earlier passcode stays (the same transaction)
            }
            return []
        }
    }

    func handleUserChangePasscode(_ call: BusCall, appID app: AppID, uid: UInt32, current: SecretBytes, newPasscode new: SecretBytes) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            try stores.withStore(uid: target, appID: app) { try $0.changePasscode(current: current, new: new) }
            return []
        }
    }

    func handleUserRemovePasscode(_ call: BusCall, appID app: AppID, uid: UInt32, current: SecretBytes) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        if current.count == 0 && call.caller != 0 {
            throw PasscodeError.permission("only root may remove a passcode without it")
        }
        try Service.checkLoginPasscodeRemoval(caller: call.caller, app: app)
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            if Service.isLoginStore(app) && current.count == 0 {
                // Root's removal of a login PIN takes the store with it (its events kept): then
                // no login store exists, which is when pam_passcode's nullok passes the user.
                let had = try stores.withStoreForQuery(uid: target, appID: app) { try $0.isPasscodeSet() }
                if had { try stores.withStore(uid: target, appID: app) { try $0.removeByAdministrator() } }
                try stores.removeStore(uid: target, appID: app, current: nil)
                if !had { throw PasscodeError.noPasscode }
                return []
            }
            try stores.withStore(uid: target, appID: app) { s in
                if current.count == 0 { try s.removeByAdministrator() } else { try s.removePasscode(current: current) }
            }
            return []
        }
    }

    func handleUserReset(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        guard call.caller == 0 else {
            throw PasscodeError.permission("only root may clear a user's failures")
        }
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            try stores.withStore(uid: target, appID: app) { try $0.clearFailuresByAdministrator() }
            return []
        }
    }

    func handleUserGetEventLog(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        try Service.checkNamed(uid, by: call.caller)
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            // The store's own log, then its removed predecessors' (KeptEvents.swift).
            let events = try stores.withStoreForQuery(uid: target, appID: app) { try $0.events() } + stores.keptEvents(uid: target, appID: app)
            return [.structs("ixs", events.map { [.int32($0.kind.rawValue), .int64($0.wallMs), .string($0.detail)] })]
        }
    }
}
