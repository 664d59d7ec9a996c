// The C ABI for the messages a person may see: each has a stable code (passcode_message, from
// the table Types/messages.txt); these calls give a code's text in the host's language and the
// code of what the library would say. A host with its own translations shows its own text for the
// code and never parses the library's.
import CPasscodeShims
import PasscodeCore

// MARK: - Messages

/// The text of a message in the host's language: the library's catalogue (gettext domain
/// `libpasscode0`, or `pam_passcode` for the PAM_ messages) for the language the locale's
/// LC_MESSAGES (and LANGUAGE) names; English without one, and in the "C" locale. The library
/// never calls `setlocale`: the program does (`setlocale(LC_ALL, "")` in C; GTK does it; Python:
/// `locale.setlocale(locale.LC_ALL, "")`). `number` takes the place of the message's `%d` and
/// picks its plural form ("1 minute", "5 minutes"; each language's own rule).
/// - Parameters:
///   - message: A `passcode_message` value.
///   - number: The number in the message (minutes, tries, digits); ignored by a message without one.
/// - Returns: A string owned by the library, valid until this thread's 16th call of
///   passcode_message_text() after this one (so several may be printed at once); "" for NONE
///   and for a value that is no `passcode_message`.
@c(passcode_message_text)  // man: passcode-messages
public func passcode_message_text(_ message: Int32, _ number: Int64) -> UnsafePointer<CChar>? {
    guard let m = Message(checked: message), m != .none else { return CStrings.intern("") }
    return ThreadMessages.keepText(Localized.text(m, number))
}

/// The message for a value of another enum: a biometric refusal in words, the security label of
/// a biometric kind, a security log entry's name.
/// - Parameters:
///   - topic: A `passcode_message_topic` value: which enum `value` is of.
///   - value: The value (for BIOMETRIC_REFUSAL NONE gives PASSCODE_MESSAGE_NONE).
///   - out: Receives a `passcode_message`.
/// - Returns: `PASSCODE_OK`, or `PASSCODE_ERR_MISUSE` (an unknown topic or value, NULL out).
@c(passcode_message_of)  // man: passcode-messages
public func passcode_message_of(_ topic: Int32, _ value: Int32, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    out?.pointee = Message.none.rawValue
    guard let out, let t = MessageTopic(checked: topic) else { return Status.errMisuse.rawValue }
    let m: Message?
    switch t {
    case .biometricRefusal: m = BiometricRefusal(checked: value).map { Message.of($0) }
    case .securityLabel: m = BiometricKind(checked: value).map { Message.label($0) }
    case .logKind: m = SecurityEvent(checked: value).map { Message.of($0) }
    }
    guard let m else { return Status.errMisuse.rawValue }
    out.pointee = m.rawValue
    return Status.ok.rawValue
}

/// What a person reads for the calling thread's last failed call on `store` (kept as
/// `passcode_errmsg` is): "Incorrect passcode", the lockout's minutes, the tries a reset code has
/// left, why a passcode is too weak, a password rule; `PASSCODE_MESSAGE_SOMETHING_WENT_WRONG` for
/// a failure a person cannot act on, NONE when there was no failure (a call that succeeds
/// leaves it as it was, as it leaves `passcode_errmsg`).
/// In service mode it is made in this process from passcoded's status and numbers.
/// - Parameters:
///   - store: A handle.
///   - out_message: Receives a `passcode_message`.
///   - out_number: Receives the number in it (0 when none); may be NULL.
/// - Returns: `PASSCODE_OK`, `PASSCODE_ERR_MISUSE` (NULL out_message), `PASSCODE_ERR_INVALID_HANDLE`.
@c(passcode_errmessage)  // man: passcode-messages
public func passcode_errmessage(_ store: OpaquePointer?, _ out_message: UnsafeMutablePointer<Int32>?,
                                _ out_number: UnsafeMutablePointer<Int64>?) -> Int32 {
    guard let box = Handles.stores.get(store) else { return Status.errInvalidHandle.rawValue }
    guard let out_message else { return Status.errMisuse.rawValue }
    let shown = box.shown
    out_message.pointee = shown.message.rawValue
    out_number?.pointee = shown.number
    return Status.ok.rawValue
}
