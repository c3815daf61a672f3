/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Included before every probe: the public block headers that the private
 * block headers assume (6.1's elevator.h does not include them itself).  The
 * scheduler includes the same ones first, so a probe sees what it sees.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
