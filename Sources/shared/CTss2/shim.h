/* tpm2-tss's types only (libtss2-dev). No library is linked: libpasscode loads
 * libtss2-esys.so.0 and libtss2-tctildr.so.0 with dlopen when a host asks for the TPM
 * (Sources/shared/PasscodeCore/Platform/TPM.swift), so the NEEDED list of libpasscode.so stays as it is. */
#include <tss2/tss2_esys.h>
#include <tss2/tss2_tctildr.h>

/* The bytes of an NV buffer. Swift imports its 2048-byte array as a tuple too large for Embedded
 * Swift to specialize withUnsafeBytes(of:) over, so TPM.swift reaches the bytes through here. */
static inline BYTE *ctss2_nv_buffer_bytes(TPM2B_MAX_NV_BUFFER *buffer) { return buffer->buffer; }
