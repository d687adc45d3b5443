#ifndef C_STANDARD_OUTPUT_H
#define C_STANDARD_OUTPUT_H

/// Flushes C's standard output stream and tells whether any write to it failed (now or earlier:
/// the stream's error flag is sticky). Swift 6 cannot name `stdout` (a mutable C global), so
/// motionctl asks here once, before it exits. Returns 0 when everything written got out, else the
/// errno of the failure (EIO when it is no longer known).
int CStandardOutput_flushFailed(void);

#endif
