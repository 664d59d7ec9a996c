// When the store keeps the key that opens its wrap in the session keyring, and when it takes it
// out (the keyring itself: Platform/SessionKeyring.swift).

extension PasscodeStore {
    /// Whether the settings want the KEK in the session keyring: the host did not opt out,
    /// biometric unlock is on, "passcode after every launch" is off, and the lock is on.
    func sessionKeyringWantedLocked() throws(PasscodeError) -> Bool {
        guard options.sessionKeyring else { return false }
        return try sessionKeyringAllowedLocked()
    }

    /// Whether the store's settings allow an entry at all (whatever this process's option says).
    func sessionKeyringAllowedLocked() throws(PasscodeError) -> Bool {
        guard try flag(.biometricEnabled), try !flag(.passcodeAfterEveryLaunch) else { return false }
        return try lockEnabledLocked()
    }

    /// Puts this handle's entry in the session keyring, or takes it out, as the settings say
    /// (after a passcode entry and after every setting change).
    /// A host that opted out never touches the keyring here (another process may use it);
    /// the security events that revoke (`revokeSessionKeyLocked`) do so in every process.
    /// Called inside a transaction, which reads the settings (under the MAC, with a pepper).
    func syncSessionKeyringLocked() {
        publishSessionEntryLocked(wanted: (try? sessionKeyringWantedLocked()) == true)
    }

    /// Puts this handle's entry in the keyring when `wanted` (as `sessionKeyringWantedLocked`
    /// said inside the caller's transaction), else takes it out.
    func publishSessionEntryLocked(wanted: Bool) {
        guard options.sessionKeyring, let entry = heldKey?.session else { return }
        if wanted { SessionKeyring.put(entry.name, kek: entry.kek) } else { SessionKeyring.remove(entry.name) }
    }

    /// Removes the entries of the store's current wrap and of this handle's (any process of
    /// the session may have put them there). Call before the verifier is deleted or replaced.
    func revokeSessionKeyLocked() {
        if let name = heldKey?.session?.name { SessionKeyring.remove(name) }
        if let name = try? currentWrapLocked()?.sessionName, name != heldKey?.session?.name { SessionKeyring.remove(name) }
    }

    /// The store's wrap as the file has it, nil without a passcode or with an old hash.
    func currentWrapLocked() throws(PasscodeError) -> KeyWrap? {
        guard let text = try passcodeRowLocked()?.text, case .wrapped(let wrap) = try Verifier.parse(text, limit: options.cost) else { return nil }
        return wrap
    }

    /// A biometric unlock in a handle without the key: the KEK this login session keeps opens the
    /// wrap in the file (a forged entry opens nothing). Nil when there is none.
    func keyFromSessionKeyringLocked() -> HeldKey? {
        guard (try? sessionKeyringWantedLocked()) == true, let wrap = try? currentWrapLocked(),
              let kek = SessionKeyring.get(wrap.sessionName), let key = wrap.open(kek: kek) else { return nil }
        var held = HeldKey(key)
        held.session = SessionEntry(name: wrap.sessionName, kek: kek)
        return held
    }
}
