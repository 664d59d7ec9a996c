/* The seam's smallest round trip in service mode: a store of the user's, a passcode set and
 * checked through passcoded (run by test_service.py, as area_smoke APP_ID GOOD). */
#include "service_support.h"

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: area_smoke APP_ID GOOD\n"); return 100; }
    passcode_status rc;
    passcode_store *s = open_service(argv[1], &rc);
    CHECK_MSG(rc == PASSCODE_OK && s != NULL, "open in service mode: %s", passcode_strerror(rc));
    if (!s) return 1;
    CHECK_STATUS(passcode_set(s, argv[2], strlen(argv[2])), PASSCODE_OK);
    CHECK_STATUS(passcode_verify(s, "000001", 6), PASSCODE_ERR_WRONG_PASSCODE);
    CHECK_STATUS(passcode_verify(s, argv[2], strlen(argv[2])), PASSCODE_OK);
    passcode_close(s);
    return tl_failures_status();
}
