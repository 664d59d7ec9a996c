// The seam's calls for lock, app events, biometric policy and the security log: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Lock.swift).
import PasscodeCore

package protocol LockBackend: AnyObject {
    /// Records an app event from this process; returns the lock state after it.
    func report(_ event: AppEvent) throws(PasscodeError) -> LockStatus
    /// A report of the device's biometrics (not a match): changes no setting.
    func setBiometricAvailability(_ available: Bool, kind: BiometricKind) throws(PasscodeError)
    /// The biometric kind the security label names (passcode_security_label).
    func biometricKind() throws(PasscodeError) -> BiometricKind
    func biometricRefusal() throws(PasscodeError) -> BiometricRefusal
    func biometricLead() throws(PasscodeError) -> Bool
    /// A match: embedded, the host's report of one; in service mode passcoded checks the finger
    /// itself through fprintd (no match is taken from the host).
    func biometricUnlock() throws(PasscodeError)
    /// As `biometricUnlock`, answering the data key held since a passcode unlock.
    func biometricUnlockKey() throws(PasscodeError) -> SecretBytes
    /// A failed match: it only counts against biometrics.
    func biometricFailed() throws(PasscodeError) -> Int64
    /// The security log, newest first.
    func events() throws(PasscodeError) -> [SecurityEventRecord]
    func failureSummary() throws(PasscodeError) -> (failures: Int, lastFailureWallMs: Int64?)
    /// Any change of the lockout table weakens: it needs the passcode's proof.
    func setCustomSchedule(delays: [Int64], maxFailures: Int) throws(PasscodeError)
    /// Whether the store is bound to a TPM (in service mode: passcoded's choice).
    func isTPMBound() throws(PasscodeError) -> Bool
    /// One item of the TPM posture (`passcode_tpm_posture`): the store's TPM option embedded,
    /// passcoded's TPM in service mode.
    func tpmPostureValue(_ item: Int32) throws(PasscodeError) -> Int64
}
