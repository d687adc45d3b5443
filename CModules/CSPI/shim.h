// The kernel's spidev header, imported as it is: no ioctl number or kernel struct is copied by
// hand in swift-motion. SPI_IOC_MESSAGE(N) and the mode/speed/word ioctls are macros over the
// variadic ioctl(2), which Swift cannot call; these inline functions are the calls.
#ifndef CSPI_SHIM_H
#define CSPI_SHIM_H

#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/spi/spi.h>
#include <linux/spi/spidev.h>

// One message of `count` transfers, chip select held between them unless a transfer's
// cs_change says otherwise. Returns the bytes transferred, or -1 with errno set.
static inline int CSPI_ioctl_message(int fd, struct spi_ioc_transfer *transfers, unsigned int count) {
    return ioctl(fd, SPI_IOC_MESSAGE(count), transfers);
}

static inline int CSPI_ioctl_write_mode(int fd, uint8_t mode) {
    return ioctl(fd, SPI_IOC_WR_MODE, &mode);
}

static inline int CSPI_ioctl_read_mode(int fd, uint8_t *mode) {
    return ioctl(fd, SPI_IOC_RD_MODE, mode);
}

static inline int CSPI_ioctl_write_bits_per_word(int fd, uint8_t bits) {
    return ioctl(fd, SPI_IOC_WR_BITS_PER_WORD, &bits);
}

static inline int CSPI_ioctl_write_max_speed(int fd, uint32_t hz) {
    return ioctl(fd, SPI_IOC_WR_MAX_SPEED_HZ, &hz);
}

// The mode bits of <linux/spi/spi.h> (SPI_CPHA, SPI_CPOL) as values Swift can read.
static const uint8_t CSPI_MODE_CPHA = SPI_CPHA;
static const uint8_t CSPI_MODE_CPOL = SPI_CPOL;

#endif
