#include "CStandardOutput.h"

#include <errno.h>
#include <stdio.h>

int CStandardOutput_flushFailed(void) {
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        return errno != 0 ? errno : EIO;
    }
    return 0;
}
