// Eclipse Mosquitto's client library (libmosquitto-dev), imported as it is: MotionPublish speaks
// MQTT only through it, no packet of its own.
#ifndef CMOSQUITTO_SHIM_H
#define CMOSQUITTO_SHIM_H

#include <mosquitto.h>

#endif
