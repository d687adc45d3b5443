// Eclipse Cyclone DDS's C library (cyclonedds-dev), imported as it is: MotionROS speaks DDS only
// through it, no RTPS packet of its own.
#ifndef CCYCLONEDDS_SHIM_H
#define CCYCLONEDDS_SHIM_H

#include <dds/dds.h>

#endif
