/* The TPM held by passcoded, through the C API in service mode (run by test_service.py as a test
 * user, against a passcoded whose configuration names an swtpm):
 *
 *   tpm_service unprovisioned|provisioned APP_ID GOOD OWNER_AUTH_FILE
 *
 * The store passcoded makes is bound to its TPM; the posture the C API answers is passcoded's
 * (provisioned: the owner authorization set and held by passcoded, a hardware guess limit of 10);
 * the host cannot name a TPM; the owner authorization file is out of the caller's reach. Lines
 * "STEP <name>" ask test_service.py to look at (or change) the TPM as root, and wait for a line. */
#include "service_support.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

static void step(const char *name) {
    printf("STEP %s\n", name);
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) exit(100);
}

static int64_t posture(passcode_store *s, passcode_tpm_posture_item item) {
    int64_t v = -1;
    passcode_status rc = passcode_tpm_posture(s, item, &v);
    if (rc != PASSCODE_OK) {
        printf("     posture item %d: %s (%s)\n", (int)item, passcode_strerror(rc), passcode_errmsg(s));
        return -100 - (int64_t)rc;
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: tpm_service unprovisioned|provisioned APP_ID GOOD OWNER_AUTH_FILE\n"); return 100; }
    int provisioned = strcmp(argv[1], "provisioned") == 0;
    const char *app = argv[2], *good = argv[3], *owner_file = argv[4];
    size_t n = strlen(good);

    /* The host cannot pick a TPM, nor an owner authorization file: passcoded decides, and says so. */
    passcode_options *o = NULL;
    passcode_options_new(&o);
    passcode_options_set_service(o, app);
    passcode_options_set_tpm(o, "swtpm:host=127.0.0.1,port=1");
    passcode_store *refused_store = NULL;
    CHECK_STATUS(passcode_open("/ignored", o, &refused_store), PASSCODE_ERR_REFUSED_IN_SERVICE_MODE);
    const char *why = passcode_errmsg(NULL);
    CHECK_MSG(refused_store == NULL && strstr(why, "TPM") && strstr(why, "passcoded.conf"),
              "a TPM the host names is refused in service mode: \"%s\"", why);
    passcode_options_free(o);

    passcode_status rc;
    passcode_store *s = open_service(app, &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open in service mode: %s", passcode_strerror(rc));
    if (!s) return 1;

    /* Before the passcode: the posture of passcoded's TPM, the store not bound yet. */
    int32_t bound = -1;
    CHECK_STATUS(passcode_tpm_is_bound(s, &bound), PASSCODE_OK);
    CHECK_MSG(bound == 0, "no passcode yet: not bound (%d)", bound);
    int64_t owner_set = posture(s, PASSCODE_TPM_POSTURE_ITEM_OWNER_AUTH_SET);
    CHECK_MSG(owner_set == provisioned, "passcoded's TPM: owner authorization set %lld (want %d)", (long long)owner_set, provisioned);
    CHECK_MSG(posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH) == 0, "no passcode yet: no offline-search promise");
    int64_t v = -1;
    CHECK_STATUS(passcode_tpm_posture(s, (passcode_tpm_posture_item)99, &v), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_tpm_posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT, NULL), PASSCODE_ERR_MISUSE);

    /* The first passcode binds the store to passcoded's TPM. */
    CHECK_STATUS(passcode_set(s, good, n), PASSCODE_OK);
    CHECK_STATUS(passcode_tpm_is_bound(s, &bound), PASSCODE_OK);
    CHECK_MSG(bound == 1, "the first passcode binds the store to passcoded's TPM (%d)", bound);
    int64_t offline = posture(s, PASSCODE_TPM_POSTURE_ITEM_NO_OFFLINE_SEARCH);
    int64_t hardware = posture(s, PASSCODE_TPM_POSTURE_ITEM_HARDWARE_GUESS_LIMIT);
    int64_t limit = posture(s, PASSCODE_TPM_POSTURE_ITEM_GUESS_LIMIT);
    printf("     %s: no_offline_search %lld, hardware_guess_limit %lld, guess_limit %lld\n", argv[1],
           (long long)offline, (long long)hardware, (long long)limit);
    CHECK_MSG(offline == 1, "bound: no offline search off this machine (%lld)", (long long)offline);
    CHECK_MSG(hardware == provisioned && limit == (provisioned ? 10 : 0),
              "the hardware guess limit is promised only provisioned: %lld, limit %lld", (long long)hardware, (long long)limit);

    /* The owner authorization file is out of the caller's reach. */
    errno = 0;
    int fd = open(owner_file, O_RDONLY);
    if (provisioned)
        CHECK_MSG(fd < 0 && errno == EACCES, "the owner authorization file is unreadable to the caller (%s)", fd < 0 ? strerror(errno) : "opened");
    else
        CHECK_MSG(fd < 0 && errno == ENOENT, "unprovisioned: there is no owner authorization file (%s)", fd < 0 ? strerror(errno) : "opened");
    if (fd >= 0) close(fd);

    int64_t da_before = posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_COUNTER);
    CHECK_STATUS(passcode_verify(s, "000001", 6), PASSCODE_ERR_WRONG_PASSCODE);
    int64_t da_after = posture(s, PASSCODE_TPM_POSTURE_ITEM_LOCKOUT_COUNTER);
    if (provisioned) {
        /* The guess went through the PIN_FAIL index (NO_DA), not the DA lockout. */
        CHECK_MSG(da_after == da_before, "provisioned: a wrong guess leaves the DA lockout alone (%lld -> %lld)", (long long)da_before, (long long)da_after);
        step("wrong");  /* test_service.py: the index's pinCount is 1 of 10 */
    } else {
        CHECK_MSG(da_after == da_before + 1, "unprovisioned: a wrong guess is a failed authorization the TPM counts (%lld -> %lld)",
                  (long long)da_before, (long long)da_after);
    }
    CHECK_STATUS(passcode_verify(s, good, n), PASSCODE_OK);
    int32_t failures = -1;
    CHECK_STATUS(passcode_failed_attempts(s, &failures), PASSCODE_OK);

    if (provisioned) {
        /* test_service.py checks pinCount is back to 0, then uses the index's limit up (as a
         * process with the TPM would with wrong guesses): passcoded refuses even the right
         * passcode, counting nothing, and the store needs a reset. */
        step("right");
        int32_t after = -1, reset = 0;
        CHECK_STATUS(passcode_verify(s, good, n), PASSCODE_ERR_TPM_GUESS_LIMIT);
        CHECK_STATUS(passcode_failed_attempts(s, &after), PASSCODE_OK);
        CHECK_STATUS(passcode_is_reset_required(s, &reset), PASSCODE_OK);
        CHECK_MSG(after == failures && reset == 1, "the hardware limit reached through passcoded: failures %d -> %d, reset required %d",
                  failures, after, reset);
    }
    passcode_close(s);
    return tl_failures_status();
}
