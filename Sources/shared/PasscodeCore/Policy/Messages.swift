// The messages a person may see, as codes and numbers (the table: Sources/libpasscode/Passcode/
// Types/messages.txt; Messages.generated.swift has each one's English). The core decides which
// message and which number; the text is made where it is shown: in the library, through its
// gettext domain in the host's language (passcode_message_text), never in passcoded.

/// A message and the number in it (minutes left, tries left; 0 when it has none).
public struct ShownMessage: Equatable, Sendable {
    public var message: Message
    public var number: Int64
    public init(_ message: Message, _ number: Int64 = 0) { self.message = message; self.number = number }
    public static let none = ShownMessage(.none)

    /// The English text, as `passcode_message_text` gives it in the C locale.
    public var english: String { message.englishText(number) }
}

extension Message {
    /// The English text with `number` in place of `%d`: the plural form unless `number` is 1.
    public func englishText(_ number: Int64 = 0) -> String {
        let (one, many) = english
        return Message.filled(Message.string(number == 1 || many == nil ? one : many!), number)
    }

    /// A StaticString's text.
    public static func string(_ s: StaticString) -> String {
        String(decoding: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount), as: UTF8.self)
    }

    /// `text` with its `%d` replaced by `number` (a text holds at most one: the table's rule).
    public static func filled(_ text: String, _ number: Int64) -> String {
        var out: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 1 < bytes.count, bytes[i + 1] == 0x64 {  // "%d"
                out.append(contentsOf: String(number).utf8)
                i += 2
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A lockout's text: the seconds while a minute or less is left, else the minutes (rounded up).
    public static func lockout(seconds: Int64) -> ShownMessage {
        let minutes = (seconds + 59) / 60
        return minutes <= 1 ? ShownMessage(.tryAgainInSeconds, seconds) : ShownMessage(.tryAgainInMinutes, minutes)
    }

    /// Why biometrics may not unlock, in words.
    public static func of(_ refusal: BiometricRefusal) -> Message {
        switch refusal {
        case .none: return .none
        case .firstUnlockAfterLaunch: return .biometricFirstUnlock
        case .passcodeNotUsedFor48Hours: return .biometricPasscode48Hours
        case .tooManyBiometricFailures: return .biometricTooManyFailures
        case .lockedOut: return .biometricLockedOut
        case .lockDisabled: return .biometricLockDisabled
        case .biometricNotEnabled: return .biometricNotEnabled
        case .biometricUnavailable: return .biometricUnavailable
        case .noPasscode: return .biometricNoPasscode
        case .resetRequired: return .biometricResetRequired
        case .deviceRestarted: return .biometricDeviceRestarted
        case .keyNotInMemory: return .biometricKeyNotInMemory
        }
    }

    /// The security settings' label for a biometric kind ("Passcode & Face ID").
    public static func label(_ kind: BiometricKind) -> Message {
        switch kind {
        case .faceID: return .labelPasscodeFaceId
        case .touchID: return .labelPasscodeTouchId
        case .fingerprint: return .labelPasscodeFingerprint
        case .none, .other: return .labelPasscodeBiometric
        }
    }

    /// A security log entry's name.
    public static func of(_ kind: SecurityEvent) -> Message {
        switch kind {
        case .failedAttempt: return .logFailedAttempt
        case .lockoutStarted: return .logLockoutStarted
        case .unlockedByPasscode: return .logUnlockedByPasscode
        case .unlockedByBiometrics: return .logUnlockedByBiometrics
        case .biometricFailed: return .logBiometricFailed
        case .maxFailuresReached: return .logMaxFailuresReached
        case .passcodeSet: return .logPasscodeSet
        case .passcodeChanged: return .logPasscodeChanged
        case .passcodeDisabled: return .logPasscodeDisabled
        case .passcodeEnabled: return .logPasscodeEnabled
        case .passcodeRemoved: return .logPasscodeRemoved
        case .resetCodeRequested: return .logResetCodeRequested
        case .resetCodeDelivered: return .logResetCodeDelivered
        case .resetCodeDeliveryFailed: return .logResetCodeDeliveryFailed
        case .resetCompleted: return .logResetCompleted
        case .resetCodeExpired: return .logResetCodeExpired
        case .forgotPasscode: return .logForgotPasscode
        case .settingChanged: return .logSettingChanged
        case .sessionSignedOut: return .logSessionSignedOut
        case .accountDeleted: return .logAccountDeleted
        case .tamperDetected: return .logTamperDetected
        case .tpmRollback: return .logTpmRollback
        }
    }

    /// The words of one setting change of the log ("two_factor_enabled 1 -> 0": TWO_FACTOR_OFF),
    /// nil for a change it has no words for.
    public static func settingChange(_ change: Substring) -> ShownMessage? {
        if change.hasPrefix("lockout_custom") {
            return ShownMessage(change.hasSuffix("removed") ? .customScheduleRemoved : .customScheduleSet)
        }
        let parts = change.split(separator: " ")
        guard parts.count == 4, parts[2] == "->", let to = Int64(parts[3]) else { return nil }
        func onOff(_ on: Message, _ off: Message) -> ShownMessage { ShownMessage(to != 0 ? on : off) }
        func time(_ s: Message, _ m: Message, _ h: Message) -> ShownMessage {
            if to != 0 && to % 3600 == 0 { return ShownMessage(h, to / 3600) }
            if to != 0 && to % 60 == 0 { return ShownMessage(m, to / 60) }
            return ShownMessage(s, to)
        }
        switch parts[0] {
        case "lock_enabled": return onOff(.lockOn, .lockOff)
        case "lock_at_launch": return onOff(.lockAtLaunchOn, .lockAtLaunchOff)
        case "biometric_enabled": return onOff(.biometricUnlockOn, .biometricUnlockOff)
        case "require_biometric_on_launch": return onOff(.requireBiometricOn, .requireBiometricOff)
        case "two_factor_enabled": return onOff(.twoFactorOn, .twoFactorOff)
        case "passcode_after_every_launch": return onOff(.passcodeEveryLaunchOn, .passcodeEveryLaunchOff)
        case "lockout_schedule": return ShownMessage(.lockoutScheduleSet, to)
        case "max_failure_action": return ShownMessage(.maxFailureActionSet, to)
        case "passcode_length": return ShownMessage(.passcodeLengthSet, to)
        case "reset_code_length": return ShownMessage(.resetCodeLengthSet, to)
        case "reset_requests_per_day": return ShownMessage(.resetRequestsPerDaySet, to)
        case "auto_lock_seconds":
            return to == 0 ? ShownMessage(.autoLockImmediately) : time(.autoLockSeconds, .autoLockMinutes, .autoLockHours)
        case "reset_code_lifetime_seconds": return time(.codeLifetimeSeconds, .codeLifetimeMinutes, .codeLifetimeHours)
        case "reset_request_interval_seconds":
            return time(.requestIntervalSeconds, .requestIntervalMinutes, .requestIntervalHours)
        case "last_password_change_wall_ms": return ShownMessage(.accountPasswordChanged)
        default: return nil
        }
    }

    /// The prefix of a "setting changed" detail that lists the defaults a new passcode restored.
    public static let restoredPrefix = "a new passcode starts from the safe defaults: "

    /// A log entry in words: its first part (the kind's name, or a setting change's words, or
    /// DEFAULTS_RESTORED) and, for restored defaults, each change after it.
    public static func logWords(kind: SecurityEvent, detail: String) -> [ShownMessage] {
        guard kind == .settingChanged else { return [ShownMessage(of(kind))] }
        if detail.hasPrefix(restoredPrefix) {
            let list = detail.dropFirst(restoredPrefix.count).split(separator: ",")
            return [ShownMessage(.defaultsRestored)] + list.map { one in
                var s = one
                while s.first == " " { s = s.dropFirst() }
                return settingChange(s) ?? ShownMessage(.logSettingChanged)
            }
        }
        return [settingChange(Substring(detail)) ?? ShownMessage(.logSettingChanged)]
    }
}

extension PasscodePolicy {
    /// The message of a weakness reason (`weakness`'s text), WEAK_PASSCODE for another text.
    public static func message(forReason reason: String) -> Message {
        switch reason {
        case "it has 4 digits in a row that repeat or climb or fall evenly": return .weakRun
        case "it is one of the most commonly chosen passcodes": return .weakCommon
        case "it repeats a three-digit group": return .weakRepeatedGroup
        case "it repeats a two-digit pair": return .weakRepeatedPair
        case "it is made of three doubled digits": return .weakDoubledDigits
        case "its second half mirrors the first": return .weakMirrored
        case "it looks like a date": return .weakDate
        default: return .weakPasscode
        }
    }
}

extension PasscodeError {
    /// What a person reads for this failure, with its number: the message a host shows (in the
    /// library's words, or its own for the code); `passcode_errmsg` stays the programmer's text.
    public var shown: ShownMessage {
        switch self {
        case .wrongPasscode: return ShownMessage(.incorrectPasscode)
        case .weakPasscode(let why): return ShownMessage(PasscodePolicy.message(forReason: why))
        case .noPasscode: return ShownMessage(.noPasscode)
        case .alreadySet: return ShownMessage(.alreadySet)
        case .lockedOut(let s): return Message.lockout(seconds: s)
        case .resetRequired: return ShownMessage(.resetRequired)
        case .loggedOut: return ShownMessage(.loggedOutAfterFailures)
        case .wrongResetCode(let left):
            return left > 0 ? ShownMessage(.wrongCodeTriesLeft, Int64(left)) : ShownMessage(.wrongCodeDiscarded)
        case .resetCodeExpired: return ShownMessage(.resetCodeExpired)
        case .noResetCode: return ShownMessage(.noResetCode)
        case .rateLimited(let s):
            let minutes = (s + 59) / 60
            return minutes <= 1 ? ShownMessage(.resetRequestWaitSeconds, s) : ShownMessage(.resetRequestWaitMinutes, minutes)
        case .passwordEmpty: return ShownMessage(.passwordEmpty)
        case .passwordTooShort(let n): return ShownMessage(.passwordTooShort, Int64(n))
        case .passwordTooLong(let n): return ShownMessage(.passwordTooLong, Int64(n))
        case .passwordMismatch: return ShownMessage(.passwordMismatch)
        case .sessionNotFound: return ShownMessage(.sessionNotFound)
        case .sessionIsCurrent: return ShownMessage(.sessionIsCurrent)
        case .confirmationMismatch: return ShownMessage(.confirmationMismatch)
        case .biometricUnavailable: return ShownMessage(.biometricUnavailable)
        case .passcodeRequired(let r): return ShownMessage(r == .none ? .passcodeNeeded : Message.of(r))
        case .proofRequired, .passcodeNeeded, .keyNotReleased, .noSessionKeyring: return ShownMessage(.passcodeNeeded)
        case .appLocked: return ShownMessage(.appLocked)
        case .hookFailed: return ShownMessage(.changeRefused)
        case .keyReplaced: return ShownMessage(.resetDataNotKept)
        case .wrongRecoveryKey: return ShownMessage(.wrongRecoveryKey)
        case .tpmLockout(let s): return ShownMessage(.tpmLockedMinutes, max(1, (s + 59) / 60))
        case .tpmGuessLimit, .tpmRollback: return ShownMessage(.tpmResetRequired)
        case .serviceUnavailable: return ShownMessage(.serviceUnavailable)
        case .resetDeliveryUnavailable: return ShownMessage(.resetCodeNotSent)
        case .biometricTimeout: return ShownMessage(.biometricTimeout)
        case .notFound, .isDirectory, .readOnly, .notAStore, .newerSchema, .corrupt, .full, .busy, .io,
             .permission, .tampered, .wrongPepper, .foreignSchema, .storeRemoved:
            return ShownMessage(.storeFailed)
        default: return ShownMessage(.somethingWentWrong)
        }
    }
}
