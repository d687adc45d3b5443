#include "CROSMessages.h"

const dds_topic_descriptor_t *CROSMessages_imuDescriptor(void) { return &sensor_msgs_msg_dds__Imu__desc; }
const dds_topic_descriptor_t *CROSMessages_magneticFieldDescriptor(void) { return &sensor_msgs_msg_dds__MagneticField__desc; }
