// passcoded's SMTP client: one message to one recipient through libcurl. curl_easy_setopt is
// variadic, which Swift cannot call, so the whole send is one C function. passcoded links
// libcurl; libpasscode.so never does.
#ifndef PASSCODE_MAIL_H
#define PASSCODE_MAIL_H

#include <stddef.h>

/// The relay and the login, as passcoded.conf gives them.
typedef struct passcode_mail_relay {
    const char *host;      /// host name or address of the relay
    unsigned port;         /// its port (25, 587; 465 is not used: STARTTLS only)
    int require_tls;       /// 1: STARTTLS is required (the session fails without it)
    const char *user;      /// NULL: no login
    const char *password;  /// with user; the caller wipes it
    long timeout_seconds;  /// the whole transfer, connect included
} passcode_mail_relay;

/// Sends `message` (headers, a blank line and the body, CRLF line ends) from `from` to `to`.
/// Returns 0 when the relay accepted it, or -1 with a reason (never the message) in `error`.
int passcode_mail_send(const passcode_mail_relay *relay, const char *from, const char *to,
                       const char *message, size_t length, char *error, size_t error_size);

#endif
