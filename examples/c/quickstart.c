/* libpasscode quick start: set a passcode, check it, and show what a wrong one does.
 *   cc quickstart.c $(pkg-config --cflags --libs passcode) -o quickstart && mkdir -m 700 -p ~/.local/state/demo && ./quickstart ~/.local/state/demo/demo.db */
#include <locale.h>
#include <passcode.h>
#include <stdio.h>

int main(int argc, char **argv) {
    setlocale(LC_ALL, "");  /* what a person reads is in the user's language */
    const char *path = argc > 1 ? argv[1] : "quickstart.db";
    passcode_store *store = NULL;
    int32_t rc = passcode_open(path, NULL, &store);
    if (rc != PASSCODE_OK) {
        fprintf(stderr, "open: %s: %s\n", passcode_strerror(rc), passcode_errmsg(NULL));
        return 1;
    }
    int32_t is_set = 0;
    passcode_is_set(store, &is_set);
    if (!is_set && (rc = passcode_set(store, "386491", 6)) != PASSCODE_OK) {
        fprintf(stderr, "set: %s\n", passcode_errmsg(store));
        passcode_close(store);
        return 1;
    }
    int32_t failures = -1, message = 0;
    int64_t number = 0;
    rc = passcode_verify(store, "000000", 6);
    passcode_errmessage(store, &message, &number);  /* the same code in every language */
    passcode_failed_attempts(store, &failures);
    printf("wrong passcode: %s (failed attempts: %d)\n", passcode_strerror(rc), failures);
    printf("the lock screen says: %s\n", passcode_message_text(message, number));
    rc = passcode_verify(store, "386491", 6);
    passcode_failed_attempts(store, &failures);
    printf("right passcode: %s (failed attempts: %d)\n", passcode_strerror(rc), failures);
    passcode_close(store);
    return rc == PASSCODE_OK ? 0 : 1;
}
