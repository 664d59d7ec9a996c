// Service mode's calls for lock, app events, biometric policy and the security log, carried to
// passcoded (Service+Lock.swift). The reporting process of an event is the caller the bus
// names, never an argument; a biometric *match* is never carried: passcoded checks the finger
// itself through fprintd (FingerprintUnlock, Service+Fingerprint.swift).
import PasscodeBus
import PasscodeCore

extension ServiceClient {
    package func report(_ event: AppEvent) throws(PasscodeError) -> LockStatus {
        let answer = try callReportEvent(event: event.rawValue)
        // The core's rule (KeyRule); a suspended key serves only a biometric unlock, which
        // service mode refuses, so here it is dropped too.
        if KeyRule.after(event, locked: answer.locked) != .keep { keyState.dropKey() }
        return LockStatus(locked: answer.locked, reason: answer.reason)
    }

    package func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws(PasscodeError) {
        try callSetBiometricAvailability(available: available, kind: kind.rawValue)
    }

    // The label, the check and the lead are fields of what a lock screen reads (GetLockScreen),
    // computed by the same core at one moment.
    package func biometricKind() throws(PasscodeError) -> BiometricKind { try lockScreen().kind }
    package func biometricRefusal() throws(PasscodeError) -> BiometricRefusal { try lockScreen().refusal }
    package func biometricLead() throws(PasscodeError) -> Bool { try lockScreen().lead }

    /// passcoded reads the finger through fprintd and applies the core's rules; a failure that
    /// leaves the app locked drops this handle's key when the core's refusal would
    /// (`dropAfterBiometricRefusal`).
    package func biometricUnlock() throws(PasscodeError) {
        do {
            try callFingerprintUnlock()
        } catch {
            dropAfterBiometricRefusal(error)
            throw error
        }
    }

    /// After a fingerprint check that did not unlock: the key goes when the refusal now is one
    /// only the passcode lifts (the core's biometricUnlock drops it for the same ones).
    func dropAfterBiometricRefusal(_ error: PasscodeError) {
        guard case .service(let status, _, _) = error, status == BusStatus.errPasscodeRequired,
              let refusal = try? lockScreen().refusal else { return }
        switch refusal {
        case .passcodeNotUsedFor48Hours, .tooManyBiometricFailures, .resetRequired, .deviceRestarted, .noPasscode: keyState.dropKey()
        default: break
        }
    }

    package func biometricFailed() throws(PasscodeError) -> Int64 {
        let count = try callBiometricFailed()
        if KeyRule.dropsAfterBiometricFailures(count) { keyState.dropKey() }  // the core's rule
        return count
    }

    package func events() throws(PasscodeError) -> [SecurityEventRecord] {
        try callGetEventLog().map { SecurityEventRecord(kind: $0.0, wallMs: $0.1, detail: $0.2) }
    }

    package func failureSummary() throws(PasscodeError) -> (failures: Int, lastFailureWallMs: Int64?) {
        let summary = try callGetFailureSummary()
        return (Int(summary.failures), summary.hasLast ? summary.lastWallMs : nil)
    }

    /// As `set(_:to:)`: no passcode goes with the table; passcoded asks the proof its connection
    /// holds and the app unlocked, as the core does. (The C call checked the count.)
    package func setCustomSchedule(delays: [Int64], maxFailures: Int) throws(PasscodeError) {
        let table = delays.map { UInt32(clamping: $0) }
        try callSetCustomSchedule(delays: table, maxFailures: UInt32(clamping: maxFailures))
    }
}
