// SPDX-License-Identifier: GPL-2.0
/*
 * i2c-regfile: a test-only I2C adapter for swift-motion's kernel tier (scripts/kernel-tier.sh).
 *
 * i2c-stub answers SMBus only, so the I2C_RDWR path of a bus (one combined transaction of
 * several messages with repeated starts) never reaches a kernel adapter through it. This adapter
 * implements master_xfer and reports I2C_FUNC_I2C (plus the core's SMBus emulation on top of it).
 * Each address given in chip_addr= is a file of 256 byte registers with a pointer, the way most
 * sensor chips behave: a write message sets the pointer with its first byte and stores any further
 * bytes from there on; a read message returns bytes from the pointer; both advance the pointer,
 * wrapping from 0xff to 0x00. A message to any other address is not acknowledged (-ENXIO), and the
 * messages after it in the same transfer are not carried out.
 *
 * bypass_host= and bypass_chip= (both in chip_addr=) model an MPU-9150's or MPU-9250's I2C
 * bypass: the chip at bypass_chip (the magnetometer, 0x0c) acknowledges only while the chip at
 * bypass_host (the MPU) has INT_PIN_CFG (0x37) I2C_BYPASS_EN (bit 1) set and USER_CTRL (0x6a)
 * I2C_MST_EN (bit 5) clear (RM-MPU-6000A / RM-MPU-9150A registers 55 and 106), as on the
 * chip, where the bypass switch joins the auxiliary bus to the main one only then. i2c-stub cannot
 * do this: its addresses always answer.
 *
 * Not for real machines: it exists to be loaded in the kernel tier's virtual machine.
 */
#include <linux/errno.h>
#include <linux/i2c.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#define REGFILE_MAX_CHIPS 8

static unsigned short chip_addr[REGFILE_MAX_CHIPS];
static int chip_count;
module_param_array(chip_addr, ushort, &chip_count, 0444);
MODULE_PARM_DESC(chip_addr, "7-bit addresses of the register files, up to 8 (required)");

/* MPU register map (RM-MPU-6000A §4.15 INT_PIN_CFG, register 55; §4.27 USER_CTRL, register 106). */
#define MPU_INT_PIN_CFG 0x37
#define MPU_I2C_BYPASS_EN 0x02
#define MPU_USER_CTRL 0x6a
#define MPU_I2C_MST_EN 0x20

static unsigned short bypass_host;
module_param(bypass_host, ushort, 0444);
MODULE_PARM_DESC(bypass_host, "address of the MPU whose I2C bypass gates bypass_chip (0: none)");
static unsigned short bypass_chip;
module_param(bypass_chip, ushort, 0444);
MODULE_PARM_DESC(bypass_chip, "address that answers only while bypass_host's bypass is on (0: none)");

struct regfile_chip {
	u8 regs[256];
	u8 pointer;
};

static struct regfile_chip *chips;
static DEFINE_MUTEX(regfile_lock);

/* The index of addr in chip_addr, or -1. */
static int regfile_index(u16 addr)
{
	int i;

	for (i = 0; i < chip_count; i++)
		if (chip_addr[i] == addr)
			return i;
	return -1;
}

/* The register file that acknowledges at addr, or NULL: not listed, or behind a bypass that is
 * off. */
static struct regfile_chip *regfile_chip_at(u16 addr)
{
	int index = regfile_index(addr);
	const u8 *host;

	if (index < 0)
		return NULL;
	if (bypass_chip && addr == bypass_chip) {
		host = chips[regfile_index(bypass_host)].regs;
		if (!(host[MPU_INT_PIN_CFG] & MPU_I2C_BYPASS_EN) || (host[MPU_USER_CTRL] & MPU_I2C_MST_EN))
			return NULL;
	}
	return &chips[index];
}

static int regfile_master_xfer(struct i2c_adapter *adapter, struct i2c_msg *msgs, int num)
{
	int i, j, result = num;

	mutex_lock(&regfile_lock);
	for (i = 0; i < num; i++) {
		struct i2c_msg *msg = &msgs[i];
		struct regfile_chip *chip = NULL;

		if (!(msg->flags & I2C_M_TEN))
			chip = regfile_chip_at(msg->addr);
		if (!chip) {
			result = -ENXIO;
			break;
		}
		if (msg->flags & I2C_M_RD) {
			for (j = 0; j < msg->len; j++)
				msg->buf[j] = chip->regs[chip->pointer++];
		} else if (msg->len > 0) {
			chip->pointer = msg->buf[0];
			for (j = 1; j < msg->len; j++)
				chip->regs[chip->pointer++] = msg->buf[j];
		}
	}
	mutex_unlock(&regfile_lock);
	return result;
}

static u32 regfile_functionality(struct i2c_adapter *adapter)
{
	return I2C_FUNC_I2C | I2C_FUNC_SMBUS_EMUL;
}

static const struct i2c_algorithm regfile_algorithm = {
	.master_xfer = regfile_master_xfer,
	.functionality = regfile_functionality,
};

static struct i2c_adapter regfile_adapter = {
	.owner = THIS_MODULE,
	.algo = &regfile_algorithm,
	.name = "swift-motion register file",
};

static int __init regfile_init(void)
{
	int i, ret;

	if (chip_count == 0) {
		pr_err("i2c-regfile: no chip_addr= given\n");
		return -EINVAL;
	}
	for (i = 0; i < chip_count; i++) {
		if (chip_addr[i] < 0x03 || chip_addr[i] > 0x77) {
			pr_err("i2c-regfile: chip_addr 0x%02x is not a 7-bit device address (0x03-0x77)\n", chip_addr[i]);
			return -EINVAL;
		}
	}
	if (bypass_chip && (regfile_index(bypass_chip) < 0 || regfile_index(bypass_host) < 0)) {
		pr_err("i2c-regfile: bypass_chip 0x%02x and bypass_host 0x%02x must both be in chip_addr\n",
		       bypass_chip, bypass_host);
		return -EINVAL;
	}
	chips = kcalloc(chip_count, sizeof(*chips), GFP_KERNEL);
	if (!chips)
		return -ENOMEM;
	ret = i2c_add_adapter(&regfile_adapter);
	if (ret)
		kfree(chips);
	return ret;
}

static void __exit regfile_exit(void)
{
	i2c_del_adapter(&regfile_adapter);
	kfree(chips);
}

module_init(regfile_init);
module_exit(regfile_exit);

MODULE_DESCRIPTION("Test-only I2C adapter with register files at given addresses (swift-motion kernel tier)");
MODULE_LICENSE("GPL");
