/* The structs of the C API. The Swift code fills them through this header (so both agree on
 * the layout), and scripts/gen_header.py copies what stands between the PUBLIC markers into
 * include/passcode.h unchanged. */
#ifndef PASSCODE_TYPES_H
#define PASSCODE_TYPES_H
#include <stddef.h>
#include <stdint.h>

/* PUBLIC BEGIN */
/**
 * @brief What a lock screen draws, read in one call by passcode_lock_screen_read().
 *
 * Versioned by its size, as sizeof-first structs are in libcurl and zstd: set `size` to
 * `sizeof(passcode_lock_screen)` before every call. Fields are only ever added at the end, so
 * a program built against an older, smaller struct keeps working with a newer library (which
 * fills the fields that fit in `size`), and a newer program with an older library finds the
 * fields that library does not know set to 0. The smallest size accepted ends with `reason`.
 */
typedef struct passcode_lock_screen {
    /** Set by the caller: sizeof(passcode_lock_screen). The library never changes it. */
    size_t size;
    /** 1 when the app is locked now (as passcode_lock_state()), else 0. */
    int32_t locked;
    /** Why it is locked: a passcode_lock_reason (NONE when not locked). */
    int32_t reason;
    /** Seconds until the next attempt is allowed, 0 without a lockout (as passcode_lockout_remaining()). */
    int64_t lockout_seconds;
    /** Failed attempts since the last successful unlock (as passcode_failed_attempts()). */
    int32_t failed_attempts;
    /** 1 when the maximum failures were reached and only a reset lets a passcode in. */
    int32_t reset_required;
    /** A passcode_biometric_refusal: NONE when a biometric match may unlock now (as passcode_biometric_check()). */
    int32_t biometric_refusal;
    /** 1 when the lock screen should open the biometric prompt by itself (as passcode_biometric_lead()). */
    int32_t biometric_lead;
    /** The reported biometric kind: a passcode_biometric_kind. */
    int32_t biometric_kind;
    /** 1 when a passcode is set (as passcode_is_set()). */
    int32_t passcode_set;
    /** 1 when the passcode lock is on: a passcode is set and not disabled (as passcode_is_enabled()). */
    int32_t lock_enabled;
    /** The settings label, "Passcode & Face ID" etc. (as passcode_security_label()): a static
     *  string owned by the library. */
    const char *security_label;
} passcode_lock_screen;
/* PUBLIC END */

#endif
