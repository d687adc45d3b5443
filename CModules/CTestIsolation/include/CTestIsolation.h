#ifndef CTEST_ISOLATION_H
#define CTEST_ISOLATION_H

/// The temporary folder the test process's XDG_CONFIG_HOME points at (see CTestIsolation.c).
const char *CTestIsolation_configurationHome(void);

#endif
