// The library version, from the VERSION file (Package.swift passes it to CPasscodeVersion);
// scripts/gen_header.py reads the same file into the PASSCODE_VERSION_* macros.
internal import CPasscodeVersion

let passcodeVersionMajor = UInt32(passcode_build_version_major)
let passcodeVersionMinor = UInt32(passcode_build_version_minor)
let passcodeVersionPatch = UInt32(passcode_build_version_patch)

// MARK: - Version

/// The library's version at run time, as `PASSCODE_VERSION_NUMBER` spells it at compile time:
/// major * 10000 + minor * 100 + patch. Compare the two to detect a header/library mismatch.
/// - Returns: The version number, e.g. 10203 for 1.2.3.
@c(passcode_version_number)  // man: passcode-version
public func passcode_version_number() -> UInt32 {
    passcodeVersionMajor * 10000 + passcodeVersionMinor * 100 + passcodeVersionPatch
}

/// The library's version as text, e.g. "1.2.3".
/// - Returns: A static string owned by the library; never free it.
@c(passcode_version_string)  // man: passcode-version
public func passcode_version_string() -> UnsafePointer<CChar>? {
    CStrings.intern("\(passcodeVersionMajor).\(passcodeVersionMinor).\(passcodeVersionPatch)")
}
