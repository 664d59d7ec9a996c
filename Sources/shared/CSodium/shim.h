#include <sodium.h>

/* libsodium's Argon2id presets and limits, and its sizes, as the constants its header defines
 * (the same numbers its crypto_pwhash_opslimit_interactive()-style getters return, fixed by
 * the library's ABI): a C program reads the macros, and so does this library, so that loading
 * it binds none of the getters (each import bound is time at every load). Swift cannot import
 * these macros (they are expressions), hence the inline functions. */
static inline unsigned long long csodium_opslimit_interactive(void) { return crypto_pwhash_OPSLIMIT_INTERACTIVE; }
static inline size_t csodium_memlimit_interactive(void) { return crypto_pwhash_MEMLIMIT_INTERACTIVE; }
static inline unsigned long long csodium_opslimit_moderate(void) { return crypto_pwhash_OPSLIMIT_MODERATE; }
static inline size_t csodium_memlimit_moderate(void) { return crypto_pwhash_MEMLIMIT_MODERATE; }
static inline unsigned long long csodium_opslimit_sensitive(void) { return crypto_pwhash_OPSLIMIT_SENSITIVE; }
static inline size_t csodium_memlimit_sensitive(void) { return crypto_pwhash_MEMLIMIT_SENSITIVE; }
static inline unsigned long long csodium_opslimit_min(void) { return crypto_pwhash_OPSLIMIT_MIN; }
static inline unsigned long long csodium_opslimit_max(void) { return crypto_pwhash_OPSLIMIT_MAX; }
static inline size_t csodium_memlimit_min(void) { return crypto_pwhash_MEMLIMIT_MIN; }
static inline size_t csodium_memlimit_max(void) { return crypto_pwhash_MEMLIMIT_MAX; }
static inline size_t csodium_strbytes(void) { return crypto_pwhash_STRBYTES; }
static inline size_t csodium_base64_encoded_len(size_t bin_len, int variant) {
    return sodium_base64_ENCODED_LEN(bin_len, variant);
}
