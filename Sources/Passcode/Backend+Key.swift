// The seam's calls for the data key, sealing and entry flows: the embedded store answers them itself, the service client
// carries them to passcoded (ServiceClient+Key.swift).
import PasscodeCore

protocol KeyBackend: AnyObject {
}
