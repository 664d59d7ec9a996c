// passcoded's methods for reset codes by email (passcoded(8) "Reset codes by email"): the
// store's recipient, and the request, whose code the core makes, hashes, counts and expires
// (PasscodeStore.requestResetCode) and passcoded mails (Mailer) as the core's delivery callback.
// The caller learns the masked address only; the code is in no reply and no log line.
import CPasscodeBus
import Glibc
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
    /// `<root>/<uid>/<app_id>.mail`: the recipient of the store's reset codes (0600, the service's).
    func recipientPath(uid: uid_t, appID: String) throws -> String {
        guard StoreRoot.validAppID(appID) else { throw StoreRoot.badAppID }
        return "\(try userFolder(uid))/\(appID).mail"
    }

    func recipient(uid: uid_t, appID: String) throws -> String? {
        let path = try recipientPath(uid: uid, appID: appID)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw PasscodeError.io("the reset recipient cannot be read (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 300)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let address = String(decoding: buffer[0..<n], as: UTF8.self)
        guard Mailer.isAddress(address) else { throw PasscodeError.corrupt("the stored reset recipient is not an address") }
        return address
    }

    /// A passcode was just set on a store that had none: the recipient kept from before (set
    /// with the proof of a passcode since removed, perhaps by another process of the uid) is not
    /// proved for the new one, and would receive its reset codes; it goes. Failing to remove it
    /// fails the call, since the new passcode would otherwise be reset through that address.
    func dropStaleRecipient(uid: uid_t, appID: String) throws {
        try setRecipient(nil, uid: uid, appID: appID)
    }

    /// Writes (nil: removes) the recipient: a new file renamed over the old one, 0600.
    func setRecipient(_ address: String?, uid: uid_t, appID: String) throws {
        let path = try recipientPath(uid: uid, appID: appID)
        guard let address else {
            if unlink(path) != 0 && errno != ENOENT { throw PasscodeError.io("the reset recipient cannot be removed") }
            return
        }
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw PasscodeError.io("the reset recipient cannot be written (\(String(cString: strerror(errno))))") }
        let bytes = Array(address.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw PasscodeError.io("the reset recipient cannot be written")
        }
    }
}

extension Service {
    func handleSetResetRecipient(_ call: BusCall, appID app: String, address: String, passcode proof: SecretBytes) throws -> Prepared {
        guard address.isEmpty || Mailer.isAddress(address) else {
            throw PasscodeError.misuse("the reset recipient must be an address (name@domain, printable ASCII, at most 254 bytes)")
        }
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            try stores.withStore(uid: caller, appID: app) { s in
                // The caller's passcode, checked (and counted) by the core now; root needs none.
                if caller != 0 {
                    guard proof.count > 0 else { throw PasscodeError.passcodeNeeded("setting the reset recipient needs the passcode") }
                    try s.authorize(proof)
                } else if !(try s.isPasscodeSet()) {
                    throw PasscodeError.noPasscode
                }
                try stores.setRecipient(address.isEmpty ? nil : address, uid: caller, appID: app)
            }
            return [.string(address.isEmpty ? "" : Mailer.mask(address))]
        }
    }

    func handleGetResetRecipient(_ call: BusCall, appID app: String) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            [.string(try stores.recipient(uid: caller, appID: app).map(Mailer.mask) ?? "")]
        }
    }

    func handleResetRequest(_ call: BusCall, appID app: String) throws -> Prepared {
        let stores = self.stores, caller = call.caller
        return Prepared(uid: caller) {
            guard let mailer = Mailer.configured else {
                throw PasscodeError.resetDeliveryUnavailable("no mail relay is configured for passcoded (passcoded.conf smtp_host); use \"forgot passcode\"")
            }
            guard let to = try stores.recipient(uid: caller, appID: app) else {
                throw PasscodeError.resetDeliveryUnavailable("no reset recipient is set for this store; use \"forgot passcode\"")
            }
            let minutes = try stores.withStore(uid: caller, appID: app) { s in (try s.get(.resetCodeLifetimeSeconds) + 59) / 60 }
            do {
                // Installed before the store is reached: Proofs.carried takes it as the call's hook.
                try MailDelivery.with({ code in mailer.send(code: code, to: to, minutes: minutes) }) {
                    try stores.withStore(uid: caller, appID: app) { try $0.requestResetCode() }
                }
            } catch PasscodeError.hookFailed(let why) {
                // The shipped unit lets passcoded reach loopback only (IPAddressAllow=localhost).
                let hint = Mailer.isLoopback(mailer.host) ? ""
                    : " (under systemd a relay off this host needs IPAddressAllow= for its address in passcoded's unit: passcoded(8))"
                log("uid \(caller): a reset code could not be mailed to \(Mailer.mask(to)): \(why)\(hint)")
                throw PasscodeError.resetDeliveryUnavailable("\(why); use \"forgot passcode\"")
            }
            return [.string(Mailer.mask(to))]
        }
    }
}
