// The library version. scripts/gen_header.py reads these three lines into the
// PASSCODE_VERSION_* macros of include/passcode.h.
let passcodeVersionMajor: UInt32 = 0
let passcodeVersionMinor: UInt32 = 1
let passcodeVersionPatch: UInt32 = 0

// MARK: - Version

/// The library's version at run time, as `PASSCODE_VERSION_NUMBER` spells it at compile time:
/// major * 10000 + minor * 100 + patch. Compare the two to detect a header/library mismatch.
/// - Returns: The version number, e.g. 100 for 0.1.0.
@c(passcode_version_number)
public func passcode_version_number() -> UInt32 {
    passcodeVersionMajor * 10000 + passcodeVersionMinor * 100 + passcodeVersionPatch
}

/// The library's version as text, e.g. "0.1.0".
/// - Returns: A static string owned by the library; never free it.
@c(passcode_version_string)
public func passcode_version_string() -> UnsafePointer<CChar>? {
    CStrings.intern("\(passcodeVersionMajor).\(passcodeVersionMinor).\(passcodeVersionPatch)")
}
