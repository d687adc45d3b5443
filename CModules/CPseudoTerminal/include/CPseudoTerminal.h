// A pseudo-terminal pair for tests that drive motionctl as a person would: posix_openpt,
// grantpt, unlockpt and ptsname_r need _XOPEN_SOURCE, which Swift's Glibc module does not define.
#ifndef CPSEUDOTERMINAL_H
#define CPSEUDOTERMINAL_H

#include <stddef.h>

/// Opens a pseudo-terminal master, readies its slave and writes the slave's path into
/// `slave_path` (of `length` bytes). Returns the master's descriptor, or -1 with errno set.
int CPseudoTerminal_open(char *slave_path, size_t length);

#endif
