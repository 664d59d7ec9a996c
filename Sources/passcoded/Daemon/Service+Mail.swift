// passcoded's methods for reset codes by email (passcoded(8) "Reset codes by email"): the
// store's recipient, and the request, whose code the core makes, hashes, counts and expires
// (PasscodeStore.requestResetCode) and passcoded mails (Mailer) as the core's delivery callback.
// The caller learns the masked address only; the code is in no reply and no log line.
import CPasscodeBus
import Glibc
import PasscodeBus
import PasscodeCore

/// The delivery callback of the one ResetRequest call running on this thread (Proofs.carried
/// installs it as the store's `deliverResetCode` for that call only).
enum MailDelivery {
    final class Box { let deliver: @Sendable (SecretBytes) -> String?; init(_ d: @escaping @Sendable (SecretBytes) -> String?) { deliver = d } }
    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    static var current: (@Sendable (SecretBytes) -> String?)? {
        pthread_getspecific(key).map { Unmanaged<Box>.fromOpaque($0).takeUnretainedValue().deliver }
    }

    static func with<R>(_ deliver: @escaping @Sendable (SecretBytes) -> String?, _ body: () throws -> R) rethrows -> R {
        let box = Unmanaged.passRetained(Box(deliver))
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, box.toOpaque())
        defer {
            pthread_setspecific(key, outer)
            box.release()
        }
        return try body()
    }
}

extension Mailer {
    /// The relay passcoded.conf names (main.swift sets it before the first call); nil: none.
    nonisolated(unsafe) static var configured: Mailer?
}

extension StoreRoot {
    /// `<root>/<uid>/<app_id>.mail`: where 0.9 kept a store's recipient, outside the store (and
    /// so outside the transaction that set a passcode). Read once, taken into the store as an
    /// address waiting for confirmation (nothing confirmed it), and removed.
    private func legacyRecipientPath(uid: uid_t, appID: AppID) throws -> String {
        return "\(try userFolder(uid))/\(StoreRoot.fileStem(appID)).mail"
    }

    /// Takes a 0.9 recipient file into `store` (unconfirmed) and removes it.
    func adoptLegacyRecipient(_ store: PasscodeStore, uid: uid_t, appID: AppID) throws {
        let path = try legacyRecipientPath(uid: uid, appID: appID)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 300)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        close(fd)
        let address = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
        if Mailer.isAddress(address) { try store.adoptUnconfirmedResetRecipient(address) }
        removeLegacyRecipient(uid: uid, appID: appID)
    }

    /// The 0.9 recipient file goes (with its store, or once adopted).
    func removeLegacyRecipient(uid: uid_t, appID: AppID) {
        guard let path = try? legacyRecipientPath(uid: uid, appID: appID) else { return }
        unlink(path)
    }
}

extension Service {
    /// The status of a refused or failed mail, with the hint for a relay off this host.
    static func mailFailure(_ mailer: Mailer, uid: uid_t, to: String, why: String, what: String) -> PasscodeError {
        // The shipped unit lets passcoded reach loopback only (IPAddressAllow=localhost).
        let hint = Mailer.isLoopback(mailer.host) ? ""
            : " (under systemd a relay off this host needs IPAddressAllow= for its address in passcoded's unit: passcoded(8))"
        log("uid \(uid): \(what) could not be mailed to \(Mailer.mask(to)): \(why)\(hint)")
        return PasscodeError.resetDeliveryUnavailable("\(why); use \"forgot passcode\"")
    }

    /// Sends one mail for `uid` to `to`: counted first against the uid's allowance (MailLedger,
    /// root's limits), then sent with this worker's turn and the uid's given up (the wait on the
    /// relay holds a standby thread, never a worker: Scheduler.whileWaiting), so that a slow
    /// relay delays no other call, the uid's own neither. nil when the relay took it, else why not.
    static func sendMail(_ mailer: Mailer, uid: uid_t, to: String, confirmation: Bool, _ send: @escaping () -> String?) throws -> String? {
        try MailLedger.shared.admit(uid: uid, to: to, confirmation: confirmation)
        guard let scheduler = Scheduler.shared else { return send() }
        guard let answer = scheduler.whileWaiting(send) else {
            throw PasscodeError.busy("passcoded has too many mails in flight for this user; try again")
        }
        return answer
    }

    func handleSetResetRecipient(_ call: BusCall, appID app: AppID, address: String, passcode proof: SecretBytes) throws -> Prepared {
        guard address.isEmpty || Mailer.isAddress(address) else {
            throw PasscodeError.misuse("the reset recipient must be an address (name@domain, printable ASCII, at most 254 bytes)")
        }
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                try stores.adoptLegacyRecipient(s, uid: caller, appID: app)
                // Root's word needs no confirmation and no passcode (passcodectl).
                if caller == 0 {
                    try s.setConfirmedResetRecipient(address.isEmpty ? nil : address, byAdministrator: true)
                    return [.string(address.isEmpty ? "" : Mailer.mask(address))]
                }
                // The caller's passcode, checked (and counted) by the core now.
                guard proof.count > 0 else { throw PasscodeError.passcodeNeeded("setting the reset recipient needs the passcode") }
                try s.authorize(proof)
                if address.isEmpty {
                    try s.setConfirmedResetRecipient(nil, byAdministrator: false)
                    return [.string("")]
                }
                // A new address waits for the code mailed to it (ConfirmResetRecipient); until
                // then reset codes go to the confirmed one, if any.
                guard let mailer = Mailer.configured else {
                    throw PasscodeError.resetDeliveryUnavailable("no mail relay is configured for passcoded (passcoded.conf smtp_host); use \"forgot passcode\"")
                }
                let wait = try MailLedger.shared.waitSeconds(uid: caller, to: address, confirmation: true)
                if wait > 0 { throw PasscodeError.rateLimited(seconds: wait) }
                let code = try s.proposeResetRecipient(address)
                if let why = try Service.sendMail(mailer, uid: caller, to: address, confirmation: true, { mailer.send(confirmation: code, to: address) }) {
                    throw Service.mailFailure(mailer, uid: caller, to: address, why: why, what: "a confirmation code")
                }
                return [.string(Mailer.mask(address))]
            }
        }
    }

    func handleConfirmResetRecipient(_ call: BusCall, appID app: AppID, code: SecretBytes, passcode proof: SecretBytes) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                guard proof.count > 0 else { throw PasscodeError.passcodeNeeded("confirming the reset recipient needs the passcode") }
                try s.authorize(proof)
                return [.string(Mailer.mask(try s.confirmResetRecipient(code: code)))]
            }
        }
    }

    func handleGetResetRecipient(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStoreForQuery(uid: caller, appID: app) { s in
                [.string(try s.resetRecipient().confirmed.map(Mailer.mask) ?? "")]
            }
        }
    }

    func handleResetRequest(_ call: BusCall, appID app: AppID) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            guard let mailer = Mailer.configured else {
                throw PasscodeError.resetDeliveryUnavailable("no mail relay is configured for passcoded (passcoded.conf smtp_host); use \"forgot passcode\"")
            }
            let (recipient, minutes, pending) = try stores.withStore(uid: caller, appID: app) { s in
                try stores.adoptLegacyRecipient(s, uid: caller, appID: app)
                return (try s.resetRecipient().confirmed, (try s.get(.resetCodeLifetimeSeconds) + 59) / 60, try s.pendingResetCodeSeconds())
            }
            guard let to = recipient else {
                throw PasscodeError.resetDeliveryUnavailable("no confirmed reset recipient is set for this store; use \"forgot passcode\"")
            }
            // A code already on its way is not replaced: a request sends and spends nothing, and
            // says where it went and when it expires (another process of the user cannot use up
            // the day's requests, nor the code the user is reading).
            if let pending { return [.string(Mailer.mask(to)), .int64(pending)] }
            let wait = try MailLedger.shared.waitSeconds(uid: caller, to: to, confirmation: false)
            if wait > 0 { throw PasscodeError.rateLimited(seconds: wait) }
            do {
                // Installed before the store is reached: Proofs.carried takes it as the call's hook.
                try MailDelivery.with({ code in
                    do { return try Service.sendMail(mailer, uid: caller, to: to, confirmation: false, { mailer.send(code: code, to: to, minutes: minutes) }) } catch {
                        return (error as? PasscodeError)?.message ?? "the mail was refused"
                    }
                }) {
                    try stores.withStore(uid: caller, appID: app) { try $0.requestResetCode() }
                }
            } catch PasscodeError.hookFailed(let why) {
                throw Service.mailFailure(mailer, uid: caller, to: to, why: why, what: "a reset code")
            }
            return [.string(Mailer.mask(to)), .int64(minutes * 60)]
        }
    }
}
