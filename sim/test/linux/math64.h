/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the kernel header: 64-bit division. */
#ifndef SSDSIM_TEST_LINUX_MATH64_H
#define SSDSIM_TEST_LINUX_MATH64_H
#include <linux/types.h>
static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}
#endif
