// The messages in the host's language: each message's English text (the table's, through
// Messages.generated.swift) looked up in the library's gettext domain, libpasscode<major> (named
// for the SONAME, so that a later major version's catalogues install beside these), or in
// pam_passcode's for its rows. The host's locale decides; a host that never calls setlocale, or
// a language without a catalogue, gets English.
import CPasscodeIntl
import PasscodeBackend
import PasscodeCore

enum Localized {
    /// The library's gettext domain: "libpasscode" and the SONAME's major version.
    static let domain = "libpasscode\(passcodeVersionMajor)"
    static let pamDomain = "pam_passcode"
    nonisolated(unsafe) private static let domainC = CStrings.intern(domain)!
    nonisolated(unsafe) private static let pamDomainC = CStrings.intern(pamDomain)!

    /// The translated text of `message` as gettext returns it: static for the life of the process
    /// (a loaded catalogue is never unloaded), with its `%d` still in it. NONE: "".
    static func format(_ message: Message, _ number: Int64) -> UnsafePointer<CChar> {
        let (one, many) = message.english
        if message == .none { return UnsafeRawPointer(one.utf8Start).assumingMemoryBound(to: CChar.self) }
        let n = UInt(clamping: number < 0 ? -number : number)
        let singular = UnsafeRawPointer(one.utf8Start).assumingMemoryBound(to: CChar.self)
        let plural = many.map { UnsafeRawPointer($0.utf8Start).assumingMemoryBound(to: CChar.self) }
        return passcode_intl_translate(message.isPAM ? pamDomainC : domainC, singular, plural, n)!
    }

    /// The text of `message` in the host's language, with `number` in place of its `%d`.
    static func text(_ message: Message, _ number: Int64 = 0) -> String {
        Message.filled(String(cString: format(message, number)), number)
    }

    static func text(_ shown: ShownMessage) -> String { text(shown.message, shown.number) }

    /// A text without a number as a static C string (gettext's, or the table's English).
    @_optimize(speed)  // on the lock screen's poll path (the security label)
    static func staticText(_ message: Message) -> UnsafePointer<CChar> { format(message, 0) }
}

extension Localized {
    /// What a person reads for a failure (`passcode_errmessage`): a service's answer as the
    /// embedded store's error it stands for (ServiceClient.shown), else by its status.
    static func shown(_ error: PasscodeError) -> ShownMessage {
        let plain = ServiceClient.shown(error)
        guard case .service(let status, _, _) = plain else { return plain.shown }
        switch Status(rawValue: status) {
        case .errServiceUnavailable: return ShownMessage(.serviceUnavailable)
        case .errResetDeliveryUnavailable: return ShownMessage(.resetCodeNotSent)
        case .errWeakPasscode: return ShownMessage(.weakPasscode)
        case .errWrongResetCode: return ShownMessage(.wrongCode)
        case .errBiometricTimeout: return ShownMessage(.biometricTimeout)
        case .errPasscodeRequired: return ShownMessage(.passcodeNeeded)
        case .errAppLocked: return ShownMessage(.appLocked)
        case .errHookFailed: return ShownMessage(.changeRefused)
        case .errTpmGuessLimit, .errTpmRollback: return ShownMessage(.tpmResetRequired)
        case .errCorrupt, .errFull, .errBusy, .errIO, .errReadOnly, .errPermission, .errTampered, .errStoreRemoved:
            return ShownMessage(.storeFailed)
        default: return ShownMessage(.somethingWentWrong)
        }
    }
}
