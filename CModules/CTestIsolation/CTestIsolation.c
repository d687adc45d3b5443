// Keeps the tests out of the user's own settings: before any test runs (a constructor of the test
// bundle), XDG_CONFIG_HOME points at a fresh temporary folder, so that every MotionManager made
// with the default calibration store in the test process, and every motionctl or program the tests
// start (they inherit the environment), reads and writes its calibrations there, never in
// ~/.config/swift-motion. The folder is removed when the process exits. A test that wants a store
// of its own still sets XDG_CONFIG_HOME for its child.
#define _XOPEN_SOURCE 700
#include "CTestIsolation.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char directory[64];

static int removeEntry(const char *path, const struct stat *status, int flag, struct FTW *walk) {
    (void)status; (void)flag; (void)walk;
    remove(path);
    return 0;
}

static void removeDirectory(void) {
    if (directory[0] != '\0') nftw(directory, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

__attribute__((constructor)) static void isolateConfiguration(void) {
    strcpy(directory, "/tmp/swift-motion-tests-XXXXXX");
    if (mkdtemp(directory) == NULL) {
        directory[0] = '\0';
        return;
    }
    setenv("XDG_CONFIG_HOME", directory, 1);
    atexit(removeDirectory);
}

const char *CTestIsolation_configurationHome(void) {
    return directory;
}
