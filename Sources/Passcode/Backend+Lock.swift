// The seam's calls for lock, app events, biometric policy and the security log: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Lock.swift).
import PasscodeCore

protocol LockBackend: AnyObject {
}
