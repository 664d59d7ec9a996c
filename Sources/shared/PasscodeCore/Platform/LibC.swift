// What Swift's Glibc module adds to the C headers and the core uses, written over
// CPasscodeShims (Sources/shared/CPasscodeShims/shims.h): the core imports no Glibc, so the same
// sources build with the full Swift runtime and with Embedded Swift, which has no Glibc module.
import CPasscodeShims

/// The calling thread's errno.
var errno: Int32 {
    get { shim_errno() }
    set { shim_set_errno(newValue) }
}

/// The file types of `st_mode`.
let S_IFMT: mode_t = shim_s_ifmt
let S_IFREG: mode_t = shim_s_ifreg
let S_IFDIR: mode_t = shim_s_ifdir
let S_IFLNK: mode_t = shim_s_iflnk
