// Service mode's data key, sealing and entry flows. passcoded checks every passcode and answers
// a correct one with the data key in a sensitive reply; the key then lives in this process, in
// the handle's own `ClientKeyState`, as an embedded handle holds it: sealing runs here, with the
// core's code (`ReleasedKey`), so each host process must unlock for itself, and the sealed data
// never crosses the bus. A flow runs here too (`PasscodeFlow` over `FlowStore`).
import CPasscodeShims
import PasscodeBus
import PasscodeCore

/// The data key as one service-mode handle holds it, in the host's process: released by a
/// correct passcode (unlock_key, verify, set, change, disable, a flow), dropped by
/// `dropKey` (a removal here; "lock now" in the lock area's client) and by `close`.
final class ClientKeyState: @unchecked Sendable {
    private let lock = Mutex()
    private var key: ReleasedKey?
    /// Whether the service recorded that the host uses this key (its `KeyState`).
    private var useRecorded = false
    private var closed = false

    /// Holds a copy of `key`; `recorded` when the call that released it recorded its use.
    func hold(_ key: SecretBytes, recorded: Bool) {
        let released = ReleasedKey(copying: key)
        lock.withLock {
            guard !closed else { return }  // closed while the call ran: keep nothing
            self.key = released
            useRecorded = recorded
        }
    }

    /// Wipes the key from this handle, as the embedded store's `dropKeyLocked`: the passcode
    /// must release it again. The client of `passcode_event_report` calls it for "lock now".
    func dropKey() {
        lock.withLock {
            key = nil
            useRecorded = false
        }
    }

    /// The handle was closed: the key goes, and no later call brings it back.
    package func close() {
        lock.withLock {
            closed = true
            key = nil
            useRecorded = false
        }
    }

    package var isClosed: Bool { lock.withLock { closed } }

    /// The key while released, and whether its use is recorded; else `keyNotReleased`.
    func released() throws(PasscodeError) -> (key: ReleasedKey, recorded: Bool) {
        guard let held = lock.withLock({ key.map { ($0, useRecorded) } }) else { throw PasscodeError.keyNotReleased }
        return held
    }

    /// The service recorded the use of `key` (still the one held).
    func markRecorded(_ key: ReleasedKey) {
        lock.withLock { if self.key === key { useRecorded = true } }
    }
}

extension ServiceClient.Reader {
    /// The 32-byte data key of a reply ('ay'), copied straight into a wiped buffer; the
    /// reply itself is sensitive (wiped when freed). A key of another length, or all zeros
    /// (compared in constant time), is refused: a service that hands out such a key is not
    /// passcoded, or is broken, and nothing may be sealed with it.
    func key() throws(PasscodeError) -> SecretBytes {
        var pointer: UnsafeRawPointer?
        var size = 0
        let r = bus.readArray(message, CChar(UInt8(ascii: "y")), &pointer, &size)
        guard r > 0, let pointer else {
            throw PasscodeError.serviceUnavailable("passcoded's answer to \(member) is not the one expected")
        }
        let expected = Sodium.keyBytes  // passcode_key_bytes()
        guard size == expected else {
            throw PasscodeError.serviceUnavailable("passcoded's answer to \(member) carried a key of \(size) bytes, not \(expected): "
                                                   + "refused, and not held (is the service passcoded, of this release?)")
        }
        guard !Sodium.isAllZero(pointer, count: size) else {
            throw PasscodeError.serviceUnavailable("passcoded's answer to \(member) carried a key of zeros only: refused, and not "
                                                   + "held (the service is not passcoded, or is broken: see its log)")
        }
        return SecretBytes(copying: UnsafeRawBufferPointer(start: pointer, count: size))
    }
}

extension ServiceClient: KeyBackend {
    // MARK: - Calls that release the key

    /// A call answered by the data key (`stub`, a generated one), which this handle then holds.
    private func keyCall(recorded: Bool = false, _ stub: () throws(PasscodeError) -> SecretBytes) throws(PasscodeError) -> SecretBytes {
        let key: SecretBytes
        do {
            key = try stub()
        } catch let f where KeyRule.drops(after: ServiceClient.shown(f)) {
            keyState.dropKey()  // the core's rule, on the service's answer
            throw f
        }
        keyState.hold(key, recorded: recorded)
        return key
    }

    /// Verifies (counted by the service exactly as Verify) and gets the key: `handingOut` for
    /// `passcode_unlock_key` (the service records, in the success's transaction, that the host
    /// has it), else only this handle holds it (verify, a flow's passcode step).
    func verifyReleasingKey(_ code: SecretBytes, handingOut: Bool) throws(PasscodeError) -> SecretBytes {
        let key = try keyCall(recorded: handingOut) { () throws(PasscodeError) in handingOut ? try callUnlockKey(passcode: code) : try callVerifyKey(passcode: code) }
        keepProof(code)
        return key
    }

    /// passcoded checks the finger (FingerprintUnlockKey) and answers a match with the key.
    package func biometricUnlockKey() throws(PasscodeError) -> SecretBytes {
        do {
            return try keyCall { () throws(PasscodeError) in try callFingerprintUnlockKey() }
        } catch {
            dropAfterBiometricRefusal(error)
            throw error
        }
    }

    package func unlockKey(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes {
        try verifyReleasingKey(code, handingOut: true)
    }

    package func setPasscode(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes {
        let key = try keyCall { () throws(PasscodeError) in try callSetPasscodeKey(passcode: code) }
        keepProof(code)
        return key
    }

    func changePasscodeReturningKey(current: SecretBytes, new: SecretBytes) throws(PasscodeError) -> SecretBytes {
        let key = try keyCall { () throws(PasscodeError) in try callChangePasscodeKey(current: current, newPasscode: new) }
        keepProof(new)
        return key
    }

    package func disable(current: SecretBytes) throws(PasscodeError) -> SecretBytes {
        let key = try keyCall { () throws(PasscodeError) in try callDisablePasscodeKey(current: current) }
        keepProof(current)
        return key
    }

    // MARK: - Sealing, in this process

    package func seal(_ plain: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int {
        let held = try keyState.released()
        if !held.recorded { try recordKeyUse(held.key) }  // as embedded: before the size check
        return try held.key.seal(plain, into: out)
    }

    // bus: local (opens with the key this handle holds, in this process: the data never crosses the bus)
    package func unseal(_ sealed: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) throws(PasscodeError) -> Int {
        try keyState.released().key.unseal(sealed, into: out)
    }

    // bus: local (the handle's own state)
    package var isClosed: Bool { keyState.isClosed }

    /// The host uses the key (sealed with it, or took it from a flow): the service records it,
    /// so that a reset that must replace the key says so.
    private func recordKeyUse(_ key: ReleasedKey?) throws(PasscodeError) {
        try callMarkKeyUsed()
        if let key { keyState.markRecorded(key) }
    }

    // MARK: - FlowStore

    // isResetCodePending: ServiceClient+Account.swift (the service's answer). Service mode hands
    // no reset code to the host, so a reset flow usually answers as the embedded store without
    // a requested code; a code delivered by the service (a later release) is taken as embedded.
    package func resetCodeLength() throws(PasscodeError) -> Int { Int(try get(.resetCodeLength)) }
    package func flowResetAllowed() throws(PasscodeError) -> Bool { try isPasscodeSet() }
    /// The service's stores never allow weak passcodes (allow_weak is refused in service mode).
    // bus: local (the strict rule of the core, the same in passcoded, asked before a flow sends anything)
    package func flowWeakness(_ code: SecretBytes) -> String? { PasscodeStore.strictWeakness(code) }
    package func flowVerify(_ code: SecretBytes) throws(PasscodeError) -> SecretBytes { try verifyReleasingKey(code, handingOut: false) }

    /// The service never takes the key from the host: it checks `current` again and replaces it.
    // bus: local (a constant of this back end)
    package var flowRechecksCurrent: Bool { true }

    package func flowReplacePasscode(current: SecretBytes, key: SecretBytes, new: SecretBytes) throws(PasscodeError) -> SecretBytes {
        try changePasscodeReturningKey(current: current, new: new)
    }

    /// The service checks the code (a try taken first, as embedded); the flow needs no expiry.
    package func checkResetCode(_ code: SecretBytes) throws(PasscodeError) -> Int64 {
        try checkReset(code)
        return 0
    }

    /// The reset through the service, then the new passcode checked once more to release the
    /// new data key to this handle (the service never sends a key unasked).
    package func flowCompleteReset(code: SecretBytes, newPasscode: SecretBytes) throws(PasscodeError) -> (key: SecretBytes, replaced: Bool) {
        let replaced = try resetPasscode(code: code, newPasscode: newPasscode, recoveryKey: nil)
        return (try verifyReleasingKey(newPasscode, handingOut: false), replaced)
    }

    package func flowKeyTaken() throws(PasscodeError) {
        try recordKeyUse(try? keyState.released().key)
    }
}

extension ServiceClient {
    /// A flow shows the service's answers as the embedded store's errors: the same status and text.
    package func flowShows(_ error: PasscodeError) -> PasscodeError { ServiceClient.shown(error) }

    /// The embedded store's error for a service's answer (`PasscodeError.service`); others as they are.
    package static func shown(_ error: PasscodeError) -> PasscodeError {
        guard case .service(let status, let message, let waitSeconds) = error else { return error }
        if status == BusStatus.errLockedOut { return .lockedOut(seconds: waitSeconds) }
        let plain: [PasscodeError] = [.wrongPasscode, .noPasscode, .alreadySet, .resetRequired, .loggedOut, .noResetCode,
                                      .resetCodeExpired, .keyNotReleased, .foreignCiphertext, .keyReplaced, .tampered, .appLocked,
                                      .biometricUnavailable, .tpmRequired, .tpmRollback, .tpmGuessLimit, .noSessionKeyring,
                                      .wipePending, .sessionNotFound, .sessionIsCurrent, .confirmationMismatch, .passwordEmpty,
                                      .passwordMismatch]
        if let e = plain.first(where: { $0.busStatus == status }) { return e }
        // The tries left are in the core's own text of it (a flow says them in its own words).
        if status == BusStatus.errWrongResetCode,
           let left = (0...16).first(where: { PasscodeError.wrongResetCode(triesLeft: $0).message == message }) {
            return .wrongResetCode(triesLeft: left)
        }
        if status == BusStatus.errWeakPasscode {
            let prefix = PasscodeError.weakPasscode("").message
            return .weakPasscode(message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message)
        }
        let carrying: [(String) -> PasscodeError] = [
            PasscodeError.misuse, PasscodeError.format, PasscodeError.notFound, PasscodeError.isDirectory, PasscodeError.readOnly,
            PasscodeError.notAStore, PasscodeError.corrupt, PasscodeError.full, PasscodeError.busy, PasscodeError.io,
            PasscodeError.outOfMemory, PasscodeError.permission, PasscodeError.invalidSetting, PasscodeError.state,
            PasscodeError.hookFailed, PasscodeError.callbackRequired, PasscodeError.wrongPepper, PasscodeError.proofRequired,
            PasscodeError.badCiphertext, PasscodeError.wrongRecoveryKey, PasscodeError.tpmUnavailable, PasscodeError.tpmMismatch,
            PasscodeError.tpmFailed, PasscodeError.foreignSchema, PasscodeError.clockOutOfRange, PasscodeError.tpmOwnerAuth,
            PasscodeError.refusedInServiceMode, PasscodeError.notInServiceMode, PasscodeError.serviceUnavailable,
            PasscodeError.resetDeliveryUnavailable, PasscodeError.biometricTimeout, PasscodeError.biometricReaderBusy,
            PasscodeError.internalError]
        if let make = carrying.first(where: { $0("").busStatus == status }) { return make(message) }
        // The service's own refusals of a sandboxed caller: their status as it came.
        if [BusStatus.errSandboxWrongApp, BusStatus.errSandboxStoreOfAnotherApp, BusStatus.errSandboxUnverified].contains(status) { return error }
        return .internalError(message)
    }
}
