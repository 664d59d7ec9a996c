/* The reset rules (failed deliveries count toward the daily limit), a reset flow
 * does not start without a code, one error text per case, a correct check uses no try, and a
 * reset needs a passcode to replace. */
#include "api_support.h"



/* A code handed to the delivery callback counts toward the daily limit even when the callback
 * reports failure (failures were once exempted, which let a host
 * whose callback sends and then fails hand out a code a minute: 30 live codes in 30 minutes).
 * The interval applies too. In service mode the same for passcoded's mails a relay refused. */
static void test_failed_deliveries_count_toward_the_daily_limit(void) {
    char path[512];
    mailbox c = {0};
    int64_t per_day = 0;
    int handed = 0;
    passcode_store *s = store_with_passcode(path, sizeof path, &c);
    per_day = get_setting(s, PASSCODE_SETTING_RESET_REQUESTS_PER_DAY);
    CHECK(per_day >= 2 && per_day < 50);
    c.fail = 1;
    for (int i = 0; i < 30; i++) {
        int rc = request_code(s, &c);
        CHECK(rc == DELIVERY_FAILED || rc == PASSCODE_ERR_RATE_LIMITED);
        handed += rc == DELIVERY_FAILED;
        if (rc == DELIVERY_FAILED) {
            CHECK_STATUS(request_code(s, &c), PASSCODE_ERR_RATE_LIMITED);  /* the interval (or the day's limit) */
            CHECK(passcode_errwait(s) > 0);
        }
        advance_ms(61 * 1000);
    }
    CHECK(handed == per_day && c.handed == per_day);  /* each one reached the callback (the relay) */
    c.fail = 0;
    CHECK_STATUS(request_code(s, &c), PASSCODE_ERR_RATE_LIMITED);
    CHECK(passcode_errwait(s) > 3600);
    printf("30 requests a minute apart, delivery failing: %d codes handed to the callback (limit %lld a day)\n",
           handed, (long long)per_day);
    /* A day after the first, requests work again. */
    advance_ms(24 * 3600 * 1000);
    CHECK_STATUS(request_code(s, &c), PASSCODE_OK);
    CHECK(strlen(c.code) == 8);
    passcode_close(s);
}

static void test_a_reset_flow_needs_a_pending_code(void) {
    char path[512];
    mailbox c = {0};
    passcode_flow *f = (passcode_flow *)&c;  /* must come back NULL */
    passcode_store *s = store_with_passcode(path, sizeof path, &c);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_RESET, &f), PASSCODE_ERR_NO_RESET_CODE);
    CHECK(f == NULL);
    CHECK(strstr(passcode_errmsg(s), "request") != NULL);
    CHECK_STATUS(request_code(s, &c), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_RESET, &f), PASSCODE_OK);
    passcode_flow_free(f);
    passcode_close(s);
}

static void test_one_text_per_wrong_code_and_a_correct_check_is_free(void) {
    char path[512], wrong[16];
    mailbox c = {0};
    passcode_flow *f = NULL;
    const char *text = NULL;
    passcode_store *s = store_with_passcode(path, sizeof path, &c);
    CHECK_STATUS(request_code(s, &c), PASSCODE_OK);
    CHECK(strlen(c.code) == 8);
    for (int i = 0; i < 10; i++) CHECK_STATUS(passcode_reset_check(s, c.code, strlen(c.code)), PASSCODE_OK);
    snprintf(wrong, sizeof wrong, "%s", c.code);
    wrong[0] = wrong[0] == '9' ? '0' : (char)(wrong[0] + 1);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_RESET, &f), PASSCODE_OK);
    for (const char *p = wrong; *p; p++) CHECK_STATUS(passcode_flow_digit(f, *p - '0'), PASSCODE_OK);
    CHECK_STATUS(passcode_flow_error(f, &text, NULL), PASSCODE_OK);
    /* 10 correct checks used nothing: this first wrong one leaves 4 of 5. */
    CHECK(text && strcmp(text, "Incorrect code. 4 more tries before it is discarded.") == 0);
    passcode_flow_free(f);
    passcode_close(s);
}

static void test_a_reset_needs_a_passcode(void) {
    char path[512];
    mailbox c = {0};
    passcode_flow *f = NULL;
    passcode_store *s = new_store(path, sizeof path);
    if (service_backend) {
        /* No passcode: no recipient can be set (passcoded's answer, even for root), and the
         * request answers NO_PASSCODE, as embedded: no mail. */
        snprintf(c.to, sizeof c.to, "r%d-nopasscode@example.org", (int)getpid());
        CHECK_STATUS(passcode_reset_recipient_set(s, c.to, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
        CHECK_STATUS(request_code(s, &c), PASSCODE_ERR_NO_PASSCODE);
    } else {
        CHECK_STATUS(passcode_set_reset_delivery_callback(s, mailbox_deliver, &c), PASSCODE_OK);
        CHECK_STATUS(request_code(s, &c), PASSCODE_ERR_NO_PASSCODE);
    }
    CHECK(c.code[0] == 0 && c.handed == 0);  /* nothing was sent */
    CHECK_STATUS(passcode_reset_complete(s, "12345678", 8, PC1, LEN), PASSCODE_ERR_NO_PASSCODE);
    CHECK_STATUS(passcode_flow_new(s, PASSCODE_FLOW_KIND_RESET, &f), PASSCODE_ERR_NO_PASSCODE);
    int32_t set = 1;
    CHECK_STATUS(passcode_is_set(s, &set), PASSCODE_OK);
    CHECK(set == 0);  /* no passcode was created by the back door */
    passcode_close(s);
}

/* passcode_reset_recipient_confirm's bad input: a specific status, nothing changed (the
 * recipient, the failures). Embedded: no recipient exists there (STATE). Service mode (root,
 * whose own stores take the recipient at once): no address waits for a code (STATE), a code of
 * the wrong length or with a non-digit (FORMAT), NULL pointers (MISUSE), a closed handle. */
static void test_recipient_confirm_bad_input_changes_nothing(void) {
    char path[512];
    mailbox m = {0};
    passcode_store *s = store_with_passcode(path, sizeof path, &m);
    char before[256] = "", after[256] = "";
    if (service_backend) CHECK_STATUS(passcode_reset_recipient(s, before, sizeof before), PASSCODE_OK);
    CHECK_STATUS(passcode_reset_recipient_confirm(NULL, "12345678", 8, PC1, LEN), PASSCODE_ERR_INVALID_HANDLE);
    CHECK_STATUS(passcode_reset_recipient_confirm(s, NULL, 8, PC1, LEN), PASSCODE_ERR_MISUSE);
    CHECK_STATUS(passcode_reset_recipient_confirm(s, "12345678", 8, NULL, LEN), PASSCODE_ERR_MISUSE);
    if (service_backend) {
        CHECK_STATUS(passcode_reset_recipient_confirm(s, "1234567", 7, PC1, LEN), PASSCODE_ERR_FORMAT);
        CHECK_STATUS(passcode_reset_recipient_confirm(s, "1234567x", 8, PC1, LEN), PASSCODE_ERR_FORMAT);
        CHECK_STATUS(passcode_reset_recipient_confirm(s, "12345678", 8, PC1, LEN), PASSCODE_ERR_STATE);
        CHECK(strstr(passcode_errmsg(s), "waiting") != NULL);
        CHECK_STATUS(passcode_reset_recipient(s, after, sizeof after), PASSCODE_OK);
        CHECK(strcmp(before, after) == 0 && before[0] != 0);  /* the recipient as it was */
    } else {
        CHECK_STATUS(passcode_reset_recipient_confirm(s, "12345678", 8, PC1, LEN), PASSCODE_ERR_STATE);
    }
    CHECK(failures(s) == 0);
    passcode_close(s);
    CHECK_STATUS(passcode_reset_recipient_confirm(s, "12345678", 8, PC1, LEN), PASSCODE_ERR_INVALID_HANDLE);
}

void run_reset_rules_tests(void) {
    RUN(test_recipient_confirm_bad_input_changes_nothing);
    RUN(test_failed_deliveries_count_toward_the_daily_limit);
    RUN(test_a_reset_flow_needs_a_pending_code);
    RUN(test_one_text_per_wrong_code_and_a_correct_check_is_free);
    RUN(test_a_reset_needs_a_passcode);
}
