#include "CROSMessages.h"

const dds_topic_descriptor_t *CROSMessages_imuDescriptor(void) { return &sensor_msgs_msg_dds__Imu__desc; }
const dds_topic_descriptor_t *CROSMessages_magneticFieldDescriptor(void) { return &sensor_msgs_msg_dds__MagneticField__desc; }
const dds_topic_descriptor_t *CROSMessages_fluidPressureDescriptor(void) { return &sensor_msgs_msg_dds__FluidPressure__desc; }
const dds_topic_descriptor_t *CROSMessages_temperatureDescriptor(void) { return &sensor_msgs_msg_dds__Temperature__desc; }
