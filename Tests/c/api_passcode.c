/* C API tests: setting, changing, disabling and removing the passcode; hashing. */
#include "api_support.h"

/* ---- the passcode ------------------------------------------------------------------------ */

static void test_set_verify_survives_restart(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_ERR_ALREADY_SET);
    int32_t v = -1;
    CHECK_STATUS(passcode_is_set(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    CHECK_STATUS(passcode_is_enabled(s, &v), PASSCODE_OK);
    CHECK(v == 1);
    passcode_close(s);
    s = open_fast(path);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_bad_passcode_input_changes_nothing(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, NULL, 6), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_set(s, "12345", 5), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "3864291", 7), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "38a429", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "386\0" "29", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "38642\xff", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, " 86429", 6), PASSCODE_ERR_FORMAT);
    int32_t v = -1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    /* Malformed entries are not attempts. */
    CHECK_STATUS(passcode_verify(s, "38642", 5), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_verify(s, "38642x", 6), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_verify(s, NULL, 6), PASSCODE_ERR_MISUSE);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_is_set(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_is_enabled(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_length(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_failed_attempts(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_lockout_remaining(s, NULL), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_is_reset_required(s, NULL), PASSCODE_ERR_MISUSE);
    /* An overlong buffer is a format error, not a crash. */
    static char huge[100000];
    memset(huge, '7', sizeof huge);
    CHECK_STATUS(passcode_verify(s, huge, sizeof huge), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_weak_passcodes_are_refused_with_a_reason(void) {
    EMBEDDED_ONLY(ONLY_WEAK);
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    const char *weak[] = {"111111", "123456", "654321", "246813", "902468", "121212", "123123",
                          "112233", "123321", "250390", "122590", "900325", "159753", "147258"};
    for (size_t i = 0; i < sizeof weak / sizeof *weak; i++) {
        CHECK_STATUS(passcode_set(s, weak[i], 6), PASSCODE_ERR_WEAK_PASSCODE);
        const char *msg = passcode_errmsg(s);
        CHECK(strlen(msg) > 20);
        CHECK(strstr(msg, weak[i]) == NULL);  /* the message never repeats the digits */
    }
    CHECK(strstr(passcode_errmsg(s), "") != NULL);
    int32_t v = -1;
    passcode_is_set(s, &v);
    CHECK(v == 0);
    /* A change to a weak passcode is refused before the current one is even checked. */
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC2, LEN, "111111", 6), PASSCODE_ERR_WEAK_PASSCODE);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* A store option relaxes the rule. */
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_allow_weak(o, 1), PASSCODE_OK);
    new_path(path, sizeof path, "weak-ok.db");
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_set(s, "123456", 6), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, "123456", 6), PASSCODE_OK);
    passcode_close(s);
}

static void test_change_needs_current_and_counts_wrong_current(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_change(s, PC3, LEN, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(failures(s) == 1);
    CHECK_STATUS(passcode_change(s, PC1, LEN, "91537", 5), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_change(s, NULL, LEN, PC2, LEN), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_change(s, PC1, LEN, PC2, LEN), PASSCODE_OK);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
}

/* Disable keeps the passcode; re-enable works with the same one. */
static void test_disable_keeps_passcode_and_enable_restores_it(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_enable(s), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_disable(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    int32_t v = -1;
    passcode_is_enabled(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_disable(s, PC1, LEN), PASSCODE_OK);
    passcode_is_enabled(s, &v);
    CHECK(v == 0);
    passcode_is_set(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_enable(s), PASSCODE_OK);
    passcode_is_enabled(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_remove_needs_current(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_remove(s, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_remove(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    int32_t v = -1;
    passcode_is_set(s, &v);
    CHECK(v == 1);
    CHECK_STATUS(passcode_remove(s, PC1, LEN), PASSCODE_OK);
    passcode_is_set(s, &v);
    CHECK(v == 0);
    passcode_is_enabled(s, &v);
    CHECK(v == 0);
    CHECK(failures(s) == 0);
    CHECK_STATUS(passcode_set(s, PC2, LEN), PASSCODE_OK);
    passcode_close(s);
}

static void test_length_is_fixed_per_store(void) {
    char path[512];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set_length(s, 3), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_length(s, 13), PASSCODE_ERR_INVALID_SETTING);
    CHECK_STATUS(passcode_set_length(s, 4), PASSCODE_OK);
    int32_t v = 0;
    passcode_length(s, &v);
    CHECK(v == 4);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_ERR_FORMAT);
    CHECK_STATUS(passcode_set(s, "1234", 4), PASSCODE_ERR_WEAK_PASSCODE);
    CHECK_STATUS(passcode_set(s, "3860", 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(s, 6), PASSCODE_ERR_STATE);
    CHECK_STATUS(passcode_verify(s, "3860", 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(s, 12), PASSCODE_ERR_STATE);
    CHECK_STATUS(passcode_remove(s, "3860", 4), PASSCODE_OK);
    CHECK_STATUS(passcode_set_length(s, 12), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, "386491150372", 12), PASSCODE_OK);
    passcode_close(s);
    s = open_fast(path);
    passcode_length(s, &v);
    CHECK(v == 12);
    CHECK_STATUS(passcode_verify(s, "386491150372", 12), PASSCODE_OK);
    passcode_close(s);
}

/* ---- hashing ----------------------------------------------------------------------------- */

static int read_hash(const char *path, char *out, size_t size) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "python3 -c \"import sqlite3; print(sqlite3.connect('%s').execute('select verifier from passcode').fetchone()[0])\"", path);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    int ok = fgets(out, (int)size, p) != NULL;
    pclose(p);
    out[strcspn(out, "\n")] = 0;
    return ok;
}

/* The verifier is a self-describing, versioned wrap of the data key under one Argon2id evaluation
 * (not a "$argon2id$" string other libraries check: there is no test of a guess cheaper than the
 * Argon2id work that also opens the key). */
static void test_stored_verifier_is_a_versioned_wrap_and_upgrades(void) {
    EMBEDDED_ONLY(ONLY_FILE);
    char path[512], hash[256], hash2[256];
    passcode_store *s = new_store(path, sizeof path);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    CHECK(read_hash(path, hash, sizeof hash));
    CHECK(strncmp(hash, "$pcwrap$v=1$argon2id,ops=1,mem=8192$", 36) == 0);
    CHECK(strstr(hash, PC1) == NULL);
    uint8_t key[32], key2[32];
    /* Opened with another cost: the next successful verify wraps the same key again at that cost. */
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_cost_explicit(o, 2, 16384), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    passcode_options_free(o);
    CHECK_STATUS(passcode_verify(s, PC2, LEN), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK(read_hash(path, hash2, sizeof hash2) && strcmp(hash, hash2) == 0);  /* not on failure */
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key, sizeof key), PASSCODE_OK);
    CHECK(read_hash(path, hash2, sizeof hash2));
    CHECK(strncmp(hash2, "$pcwrap$v=1$argon2id,ops=2,mem=16384$", 37) == 0);
    CHECK_STATUS(passcode_unlock_key(s, PC1, LEN, key2, sizeof key2), PASSCODE_OK);
    CHECK(memcmp(key, key2, sizeof key) == 0);
    passcode_close(s);
}

static void test_default_cost_is_interactive(void) {
    EMBEDDED_ONLY(ONLY_COST);
    char path[512], hash[256];
    new_path(path, sizeof path, "interactive.db");
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, NULL, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    CHECK(read_hash(path, hash, sizeof hash));
    CHECK(strncmp(hash, "$pcwrap$v=1$argon2id,ops=2,mem=67108864$", 40) == 0);
}

static void test_pepper_is_needed_to_verify(void) {
    EMBEDDED_ONLY(ONLY_PEPPER);
    char path[512];
    uint8_t pepper[32], other[32];
    for (int i = 0; i < 32; i++) { pepper[i] = (uint8_t)(i * 7 + 1); other[i] = (uint8_t)(i * 7 + 2); }
    passcode_options *o = fast_options();
    CHECK_STATUS(passcode_options_set_pepper(o, pepper, 32), PASSCODE_OK);
    new_path(path, sizeof path, "pepper.db");
    passcode_store *s = NULL;
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_set(s, PC1, LEN), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    /* Without the pepper, or with another: refused at open, before anything is written. */
    size_t len;
    char *before = slurp(path, &len);
    passcode_options *plain = fast_options();
    CHECK_STATUS(passcode_open(path, plain, &s), PASSCODE_ERR_WRONG_PEPPER);
    CHECK(s == NULL);
    CHECK(strstr(passcode_errmsg(NULL), "set up with a pepper") != NULL);
    CHECK_STATUS(passcode_options_set_pepper(o, other, 32), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_ERR_WRONG_PEPPER);
    CHECK(same_file(path, before, len));
    free(before);
    /* A store made without a pepper is not opened with one. */
    char plain_path[512];
    passcode_store *p = new_store(plain_path, sizeof plain_path);
    CHECK_STATUS(passcode_set(p, PC1, LEN), PASSCODE_OK);
    passcode_close(p);
    CHECK_STATUS(passcode_open(plain_path, o, &p), PASSCODE_ERR_WRONG_PEPPER);
    passcode_options_free(plain);
    CHECK_STATUS(passcode_options_set_pepper(o, pepper, 32), PASSCODE_OK);
    CHECK_STATUS(passcode_open(path, o, &s), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, PC1, LEN), PASSCODE_OK);
    passcode_close(s);
    passcode_options_free(o);
}

void run_passcode_tests(void) {
    RUN(test_set_verify_survives_restart);
    RUN(test_bad_passcode_input_changes_nothing);
    RUN(test_weak_passcodes_are_refused_with_a_reason);
    RUN(test_change_needs_current_and_counts_wrong_current);
    RUN(test_disable_keeps_passcode_and_enable_restores_it);
    RUN(test_remove_needs_current);
    RUN(test_length_is_fixed_per_store);
    RUN(test_stored_verifier_is_a_versioned_wrap_and_upgrades);
    RUN(test_default_cost_is_interactive);
    RUN(test_pepper_is_needed_to_verify);
}
