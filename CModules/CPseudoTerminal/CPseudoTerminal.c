#define _GNU_SOURCE  /* posix_openpt, grantpt, unlockpt, ptsname_r */
#include "CPseudoTerminal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int CPseudoTerminal_open(char *slave_path, size_t length) {
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0) return -1;
    if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, slave_path, length) != 0) {
        int saved = errno;
        close(master);
        errno = saved;
        return -1;
    }
    return master;
}
