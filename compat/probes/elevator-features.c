// SPDX-License-Identifier: GPL-2.0
/*
 * elevator_type.elevator_features exists: zoned devices need a scheduler
 * that declares ELEVATOR_F_ZBD_SEQ_WRITE and write-locks zones (until 6.10).
 */
#include "block/elevator.h"

struct elevator_type ac_probe_type = {
	.elevator_features = 0,
};
