// The seam's calls for reset codes, the account, device sessions and the recovery key: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Account.swift).
import PasscodeCore

protocol AccountBackend: AnyObject {
}
