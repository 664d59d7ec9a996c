// A user's login store read by uid (WatchLogin, UserGetLockout; the interface
// org.libpasscode.Passcode1.Login): what a greeter or a screen locker shows instead of parsing
// PAM's text ("locked for 4 minutes, 3 wrong answers left"). Read by root, by the user's own
// processes (a screen locker runs as the user) and by the accounts passcoded.conf's
// greeter_users names (GDM's greeter runs as Debian-gdm, not root); no other uid reads it, and
// only a login store (`login`, `login.<name>`) is read this way. A watcher's PropertiesChanged
// are sent to it alone, as the stores' (Service+Properties.swift), and only after a call through
// passcoded changed the store: a lockout's end is counted down by the watcher itself.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

/// What is pushed of one login store.
struct LoginSnapshot: PushSnapshot {
    var screen: LockScreen
    /// No field depends on the time it is read.
    var clockFree: Bool
    var next: NextLockout?

    var state: LoginState {
        if !screen.passcodeSet { return .noPasscode }
        if screen.resetRequired { return .resetRequired }
        return screen.lockoutSeconds > 0 ? .lockedOut : .open
    }

    func props(generation: UInt64) -> passcode_bus_login_props {
        // One argument per property of the XML (the struct is generated: include/passcode_bus_store.h).
        passcode_bus_login_props(generation: generation, settled: clockFree ? 1 : 0, state: state.rawValue,
                                 lockout_remaining: screen.lockoutSeconds, failed_attempts: UInt32(clamping: screen.failedAttempts),
                                 attempts_left: next.map { Int32(clamping: $0.failuresLeft) } ?? -1,
                                 next_delay: next.map { $0.requiresReset ? -1 : $0.delaySeconds } ?? 0,
                                 fingerprint_refusal: screen.refusal.rawValue)
    }

    static func unreadable(generation: UInt64) -> passcode_bus_login_props {
        var p = passcode_bus_login_props()
        p.generation = generation
        return p
    }

    static func send(_ bus: OpaquePointer, to destination: String, uid: uid_t, app: String, _ props: inout passcode_bus_login_props) -> Int32 {
        passcode_bus_send_login_changed(bus, destination, uid, app, &props)
    }

    /// The login store `store` as pushed.
    static func read(_ store: PasscodeStore) throws -> LoginSnapshot {
        let (screen, clockFree) = try store.lockScreenReading()
        let next = screen.passcodeSet ? try store.nextLockout() : nil
        return LoginSnapshot(screen: screen, clockFree: clockFree, next: next)
    }
}

/// The login stores' objects (WatchLogin): by uid, for root, the uid itself and the greeters.
enum LoginPushes {
    static let shared = PushBook<LoginSnapshot>()
}

extension Service {
    /// The uids of passcoded.conf's greeter_users (resolved at the start, as root).
    nonisolated(unsafe) static var greeterUIDs: Set<uid_t> = []

    /// Who reads `uid`'s login store `app`: root, the uid itself, a greeter account; and only a
    /// login store. Anything else is refused before anything is read or registered.
    static func checkLoginReader(caller: uid_t, uid: UInt32, app: AppID) throws {
        guard isLoginStore(app) else {
            throw PasscodeError.permission("only a login store (login, login.NAME) is read by uid this way, not \(app)")
        }
        guard caller == 0 || caller == uid || greeterUIDs.contains(caller) else {
            throw PasscodeError.permission("uid \(caller) may not read uid \(uid)'s login state (root, the user itself and passcoded.conf's greeter_users only)")
        }
    }

    /// A lockout of `uid`'s login store pending from before a reboot starts again now, recorded
    /// (PasscodeStore.recordLockoutRestart): pam_passcode asks for no PIN while locked out, so no
    /// attempt would ever record it and every reading would answer the whole delay again. The
    /// store is opened to write only when one is due (a query opens no store file).
    static func settleLoginLockout(_ stores: StoreRoot, uid: uid_t, app: AppID) throws {
        guard isLoginStore(app) else { return }
        if try stores.withStoreForQuery(uid: uid, appID: app, { try $0.lockoutRestartDue() }) {
            try stores.withStore(uid: uid, appID: app) { try $0.recordLockoutRestart() }
        }
    }

    /// The path of `uid`'s login object `app`.
    static func loginPath(uid: UInt32, app: AppID) throws -> String {
        guard let cPath = passcode_bus_login_path(uid, app.name) else {
            throw CallError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: "app_id")
        }
        defer { free(cPath) }
        return String(cString: cPath)
    }

    /// WatchLogin(app_id, uid) -> (path, the properties): `uid`'s login store now, and its
    /// PropertiesChanged from now on, addressed to the calling connection.
    func handleWatchLogin(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        try Service.checkLoginReader(caller: call.caller, uid: uid, app: app)
        guard let s = sd_bus_message_get_sender(call.message), s.pointee == CChar(UInt8(ascii: ":")) else {
            throw CallError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "the caller has no unique name")
        }
        let path = try Service.loginPath(uid: uid, app: app)
        let stores = self.stores, target = uid
        // Registered here, on the bus thread (as Watch: PushBook.register).
        let entry = try LoginPushes.shared.register(uid: target, app: app.name, sender: String(cString: s), caller: call.caller)
        return Prepared(uid: target) {
            try Service.settleLoginLockout(stores, uid: target, app: app)
            let (state, generation) = try LoginPushes.shared.answer(entry) {
                try stores.withStoreForQuery(uid: target, appID: app) { try LoginSnapshot.read($0) }
            }
            return [.string(path)] + Service.loginPropertyValues(state.props(generation: generation))
        }
    }

    /// UserGetLockout(app_id, uid) -> (path, the properties): the same, once, nothing registered
    /// (pam_passcode's PAM_PASSCODE_STATE). Root, or the caller's own uid.
    func handleUserGetLockout(_ call: BusCall, appID app: AppID, uid: UInt32) throws -> Prepared {
        guard call.caller == 0 || call.caller == uid else { throw Service.notRoot }
        try Service.checkLoginReader(caller: call.caller, uid: uid, app: app)
        let path = try Service.loginPath(uid: uid, app: app)
        let stores = self.stores, target = uid
        return Prepared(uid: target) {
            try Service.settleLoginLockout(stores, uid: target, app: app)
            let state = try stores.withStoreForQuery(uid: target, appID: app) { try LoginSnapshot.read($0) }
            return [.string(path)] + Service.loginPropertyValues(state.props(generation: 0))
        }
    }
}
