// See include/passcode_mail.h.
#include "passcode_mail.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static CURLcode init_result = CURLE_FAILED_INIT;

static void init_curl(void) { init_result = curl_global_init(CURL_GLOBAL_DEFAULT); }

struct reader { const char *data; size_t left; };

static size_t read_message(char *buffer, size_t size, size_t count, void *user) {
    struct reader *r = user;
    size_t n = size * count;
    if (n > r->left) n = r->left;
    memcpy(buffer, r->data, n);
    r->data += n;
    r->left -= n;
    return n;
}

int passcode_mail_send(const passcode_mail_relay *relay, const char *from, const char *to,
                       const char *message, size_t length, char *error, size_t error_size) {
    if (error_size) error[0] = 0;
    pthread_once(&init_once, init_curl);
    if (init_result != CURLE_OK) {
        snprintf(error, error_size, "libcurl cannot start: %s", curl_easy_strerror(init_result));
        return -1;
    }
    CURL *curl = curl_easy_init();
    if (!curl) {
        snprintf(error, error_size, "libcurl cannot start");
        return -1;
    }
    char url[1100];
    // An IPv6 address goes in brackets.
    int v6 = strchr(relay->host, ':') != NULL;
    snprintf(url, sizeof url, "smtp://%s%s%s:%u", v6 ? "[" : "", relay->host, v6 ? "]" : "", relay->port);
    char curl_error[CURL_ERROR_SIZE] = "";
    struct reader r = { message, length };
    struct curl_slist *rcpt = curl_slist_append(NULL, to);
    CURLcode rc = rcpt ? CURLE_OK : CURLE_OUT_OF_MEMORY;
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_URL, url);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
    // Only SMTP, no redirects, no signals (passcoded is threaded), no proxy from the environment.
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp");
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_PROXY, "");
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_USE_SSL, relay->require_tls ? (long)CURLUSESSL_ALL : (long)CURLUSESSL_NONE);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_TIMEOUT, relay->timeout_seconds);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, relay->timeout_seconds);
    if (rc == CURLE_OK && relay->user) rc = curl_easy_setopt(curl, CURLOPT_USERNAME, relay->user);
    if (rc == CURLE_OK && relay->user) rc = curl_easy_setopt(curl, CURLOPT_PASSWORD, relay->password ? relay->password : "");
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_READFUNCTION, read_message);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_READDATA, &r);
    if (rc == CURLE_OK) rc = curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    if (rc == CURLE_OK) rc = curl_easy_perform(curl);
    if (rc != CURLE_OK)
        snprintf(error, error_size, "%s", curl_error[0] ? curl_error : curl_easy_strerror(rc));
    // libcurl keeps a copy of the password: it is dropped with the handle.
    curl_slist_free_all(rcpt);
    curl_easy_cleanup(curl);
    return rc == CURLE_OK ? 0 : -1;
}
