/* The library's translations: its messages through its own gettext domains (dgettext and
 * dngettext of glibc), in the language the host's locale names. The library never calls
 * setlocale or textdomain: the host decides (GTK does it at start; a C or Python program calls
 * setlocale(LC_ALL, "")), and a host that never does gets English. */
#ifndef PASSCODE_INTL_H
#define PASSCODE_INTL_H

/* The translation of `singular` (and `plural`, chosen by `n`; NULL when the text has no number)
 * in `domain`, bound at its first use to the catalogue folder beside the library (locale_dir());
 * the English text itself when the language has none. The result is gettext's (static) or one
 * of the arguments. */
const char *passcode_intl_translate(const char *domain, const char *singular, const char *plural, unsigned long n);

/* The folder the library reads its catalogues from (LANG/LC_MESSAGES/DOMAIN.mo under it). */
const char *passcode_intl_locale_dir(void);

#endif
