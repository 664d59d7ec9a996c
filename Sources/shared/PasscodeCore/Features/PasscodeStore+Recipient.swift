// Service mode: the address passcoded mails a store's reset codes to. It lives in the store, so
// that the transaction that sets a passcode without proving the last one also removes it: no
// address set under an earlier passcode (perhaps by another process of the user) survives into
// the new one, even if passcoded is killed in between. An address is used only once confirmed:
// set, it waits with a confirmation code that passcoded mails to it, and becomes the recipient
// when that code is entered back with the passcode (as every service confirms an address).
// The embedded store never has one: its codes go to the host's delivery callback.

/// A store's reset recipient: the confirmed address, and one waiting for its code.
public struct ResetRecipient: Equatable, Sendable {
    public var confirmed: String?
    public var pending: String?
}

extension PasscodeStore {
    /// Digits of an address's confirmation code, its tries and its lifetime.
    public static let recipientCodeDigits = 8
    public static let recipientCodeMaxTries: Int64 = 5
    public static let recipientCodeLifetimeMs: Int64 = 86_400_000

    /// An address as the store keeps it: 3 to 254 bytes of printable ASCII with one at sign
    /// (passcoded checks its own stricter rule before any is stored). A stored value that is not
    /// one is damage: `corrupt`.
    static func isStorableAddress(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        return (3...254).contains(bytes.count) && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7f } && bytes.filter { $0 == 0x40 }.count == 1
    }

    private func addressLocked(_ key: StateKey) throws(PasscodeError) -> String? {
        guard let value = try db.stateValue(key) else { return nil }
        guard let text = value.text, PasscodeStore.isStorableAddress(text) else {
            throw PasscodeError.corrupt("the store's \(key.rawValue) is not an address")
        }
        return text
    }

    /// The recipient and the address waiting for confirmation (each nil when none).
    public func resetRecipient() throws(PasscodeError) -> ResetRecipient {
        try read(.recover) { () throws(PasscodeError) in
            ResetRecipient(confirmed: try addressLocked(.recipient), pending: try addressLocked(.recipientPending))
        }
    }

    /// Every recipient row goes. In the transaction that sets a passcode without the last one,
    /// that deletes the account, or that clears the recipient.
    func dropResetRecipientLocked() throws(PasscodeError) {
        for key in [StateKey.recipient, .recipientPending, .recipientCode, .recipientCodeExpiresWallMs, .recipientCodeTries] {
            try db.deleteState(key)
        }
    }

    private func dropPendingRecipientLocked() throws(PasscodeError) {
        for key in [StateKey.recipientPending, .recipientCode, .recipientCodeExpiresWallMs, .recipientCodeTries] {
            try db.deleteState(key)
        }
    }

    /// The caller proved the passcode on this handle (`authorize`) and it is still the one set;
    /// `byAdministrator` (passcoded's root): a passcode is set, no proof asked.
    private func checkRecipientRightLocked(byAdministrator: Bool) throws(PasscodeError) {
        if byAdministrator {
            guard try passcodeRowLocked() != nil else { throw PasscodeError.noPasscode }
        } else {
            try checkStillProvedLocked()
        }
    }

    /// Records `address` as waiting for confirmation, replacing any earlier one waiting (the
    /// confirmed recipient stays until the new one is confirmed), and returns its new code, for
    /// passcoded to mail to it. Needs the passcode proved on this handle (`authorize`).
    public func proposeResetRecipient(_ address: String) throws(PasscodeError) -> SecretBytes {
        guard PasscodeStore.isStorableAddress(address) else { throw PasscodeError.misuse("the reset recipient must be an address") }
        let now = try now()
        let code = SecretBytes(count: PasscodeStore.recipientCodeDigits)
        code.withMutableBytes { b in
            for i in 0..<b.count { b[i] = 0x30 + UInt8(Sodium.randomUniform(10)) }
        }
        let salt = Sodium.randomBytes(32)
        let hash = Sodium.mac(code, key: salt)
        try write { () throws(PasscodeError) in
            try checkRecipientRightLocked(byAdministrator: false)
            try db.putState(.recipientPending, .text(address))
            try db.putState(.recipientCode, .blob(salt + hash))
            try db.putState(.recipientCodeExpiresWallMs, .int(min(now.wallMs + PasscodeStore.recipientCodeLifetimeMs, ClockReading.wallRange.upperBound)))
            try db.putState(.recipientCodeTries, .int(0))
        }
        return code
    }

    /// The address waiting for confirmation becomes the recipient when `code` is its code. The try
    /// is counted in the same transaction as the answer (5, then the address waiting goes); an
    /// expired code goes too. Needs the passcode proved on this handle. Returns the recipient.
    public func confirmResetRecipient(code: SecretBytes) throws(PasscodeError) -> String {
        guard code.count == PasscodeStore.recipientCodeDigits, code.isAllDigits else {
            throw PasscodeError.format("the confirmation code must have exactly \(PasscodeStore.recipientCodeDigits) digits")
        }
        let now = try now()
        let outcome: Result<String, PasscodeError> = try write { () throws(PasscodeError) in
            try checkRecipientRightLocked(byAdministrator: false)
            guard let address = try addressLocked(.recipientPending) else {
                return .failure(.state("no address is waiting for confirmation; set the reset recipient first"))
            }
            guard let stored = try db.stateValue(.recipientCode)?.blob, stored.count == 64,
                  let expires = try db.stateValue(.recipientCodeExpiresWallMs)?.int,
                  let tries = try db.stateValue(.recipientCodeTries)?.int, (0...PasscodeStore.recipientCodeMaxTries).contains(tries) else {
                throw PasscodeError.corrupt("the store's confirmation code of the reset recipient is damaged")
            }
            if now.wallMs >= expires || tries >= PasscodeStore.recipientCodeMaxTries {
                try dropPendingRecipientLocked()
                return .failure(.resetCodeExpired)
            }
            try db.putState(.recipientCodeTries, .int(tries + 1))
            let hash = Sodium.mac(code, key: Array(stored[0..<32]))
            guard Sodium.constantTimeEqual(hash, Array(stored[32..<64])) else {
                let left = PasscodeStore.recipientCodeMaxTries - tries - 1
                if left <= 0 { try dropPendingRecipientLocked() }
                return .failure(.wrongResetCode(triesLeft: Int(left)))
            }
            try dropPendingRecipientLocked()
            try db.putState(.recipient, .text(address))
            return .success(address)
        }
        return try outcome.get()
    }

    /// Sets the recipient at once, confirmed (passcoded's root: the administrator's word), or
    /// clears it and any address waiting (nil; a user's call needs the passcode proved on this
    /// handle, root's none).
    public func setConfirmedResetRecipient(_ address: String?, byAdministrator: Bool) throws(PasscodeError) {
        if let address, !PasscodeStore.isStorableAddress(address) { throw PasscodeError.misuse("the reset recipient must be an address") }
        guard address == nil || byAdministrator else { throw PasscodeError.misuse("only the administrator sets a recipient without its confirmation") }
        try write { () throws(PasscodeError) in
            try checkRecipientRightLocked(byAdministrator: byAdministrator)
            try dropResetRecipientLocked()
            if let address { try db.putState(.recipient, .text(address)) }
        }
    }

    /// A recipient kept outside the store by 0.9 (passcoded's `<app>.mail` file), taken in as
    /// an address waiting for confirmation with no code (it is confirmed by setting it again):
    /// never as the recipient, since nothing confirmed it. Only when the store has none.
    public func adoptUnconfirmedResetRecipient(_ address: String) throws(PasscodeError) {
        guard PasscodeStore.isStorableAddress(address) else { return }
        try write { () throws(PasscodeError) in
            guard try passcodeRowLocked() != nil, try db.stateValue(.recipient) == nil, try db.stateValue(.recipientPending) == nil else { return }
            try db.putState(.recipientPending, .text(address))
            try db.putState(.recipientCode, .blob([UInt8](repeating: 0, count: 64)))
            try db.putState(.recipientCodeExpiresWallMs, .int(0))  // expired: no code confirms it
            try db.putState(.recipientCodeTries, .int(PasscodeStore.recipientCodeMaxTries))
        }
    }
}
