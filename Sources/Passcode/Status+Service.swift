// The status mapping, for passcoded: its replies carry the same statuses the C API returns.
import PasscodeCore

extension PasscodeError {
    /// The status a `passcode_*` call returns for this error (the one mapping, in Status.swift).
    public var passcodeStatus: Status { status }
}

extension Status {
    /// The status's name without its `err` prefix ("WrongPasscode"), as in the D-Bus error
    /// names of passcoded (`org.libpasscode.Error.WrongPasscode`).
    public var serviceName: String {
        let name = String(describing: self)
        guard name.hasPrefix("err") else { return name.prefix(1).uppercased() + name.dropFirst() }
        return String(name.dropFirst(3))
    }

    /// The short English text of `passcode_strerror`.
    public var serviceText: String { text }
}
