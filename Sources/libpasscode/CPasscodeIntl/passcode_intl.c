/* The library's gettext glue (include/passcode_intl.h): dgettext and dngettext through its own
 * domains, bound once, lazily, as the GNU gettext manual asks of a library ("Preparing Library
 * Sources"; linux-pam's pam_i18n.h and pam_fprintd do the same); never setlocale or textdomain.
 *
 * The catalogues are found beside the library, so that one build serves every place it is
 * installed and the build tree: the first folder that exists of
 *   DIR/share/locale        the build tree (build/libpasscode.so.0 -> build/share/locale)
 *   DIR/../share/locale     PREFIX/lib -> PREFIX/share/locale (make install)
 *   DIR/../../share/locale  PREFIX/lib/<multiarch> -> PREFIX/share/locale (the Debian packages)
 * where DIR is the library's own folder (dladdr), else /usr/share/locale. */
#define _GNU_SOURCE
#include "include/passcode_intl.h"  /* the Embedded build compiles this file without the target's include path */

#include <dlfcn.h>
#include <libintl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char locale_dir[PATH_MAX];
static pthread_once_t dir_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t bound_lock = PTHREAD_MUTEX_INITIALIZER;
/* The domains bound so far: the library's and pam_passcode's. */
static const char *bound[4];

static int is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void find_locale_dir(void) {
    snprintf(locale_dir, sizeof locale_dir, "%s", "/usr/share/locale");
    Dl_info info;
    char self[PATH_MAX];
    if (!dladdr((void *)&passcode_intl_translate, &info) || !info.dli_fname || !realpath(info.dli_fname, self)) return;
    char *slash = strrchr(self, '/');
    if (!slash) return;
    *slash = '\0';
    static const char *const below[] = {"/share/locale", "/../share/locale", "/../../share/locale"};
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
        char candidate[PATH_MAX + 32];
        snprintf(candidate, sizeof candidate, "%s%s", self, below[i]);
        char resolved[PATH_MAX];
        if (is_dir(candidate) && realpath(candidate, resolved)) {
            snprintf(locale_dir, sizeof locale_dir, "%s", resolved);
            return;
        }
    }
}

const char *passcode_intl_locale_dir(void) {
    pthread_once(&dir_once, find_locale_dir);
    return locale_dir;
}

static void bind_once(const char *domain) {
    const char *dir = passcode_intl_locale_dir();
    pthread_mutex_lock(&bound_lock);
    size_t i = 0;
    for (; i < sizeof bound / sizeof bound[0] && bound[i]; i++)
        if (strcmp(bound[i], domain) == 0) break;
    if (i < sizeof bound / sizeof bound[0] && !bound[i]) {
        bindtextdomain(domain, dir);
        bind_textdomain_codeset(domain, "UTF-8");
        bound[i] = strdup(domain);
    }
    pthread_mutex_unlock(&bound_lock);
}

const char *passcode_intl_translate(const char *domain, const char *singular, const char *plural, unsigned long n) {
    bind_once(domain);
    return plural ? dngettext(domain, singular, plural, n) : dgettext(domain, singular);
}
