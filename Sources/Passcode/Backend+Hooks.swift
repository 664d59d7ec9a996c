// The seam's calls for callbacks and hooks asked of the host: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Hooks.swift).
import PasscodeCore

protocol HookBackend: AnyObject {
}
