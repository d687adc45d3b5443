// The kernel's own I2C headers and libi2c's SMBus helpers, imported as they are:
// no ioctl number or kernel struct is copied by hand anywhere in swift-motion.
#ifndef CI2C_SHIM_H
#define CI2C_SHIM_H

#include <sys/ioctl.h>
#include <linux/i2c.h>
#include <linux/i2c-dev.h>
#include <i2c/smbus.h>

// ioctl(2) is variadic and therefore not callable from Swift; these shims are.
static inline int CI2C_ioctl_funcs(int fd, unsigned long *funcs) {
    return ioctl(fd, I2C_FUNCS, funcs);
}

static inline int CI2C_ioctl_slave(int fd, long address) {
    return ioctl(fd, I2C_SLAVE, address);
}

static inline int CI2C_ioctl_rdwr(int fd, struct i2c_rdwr_ioctl_data *data) {
    return ioctl(fd, I2C_RDWR, data);
}

#endif
