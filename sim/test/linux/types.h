/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the kernel header, enough for the ssdsim model. */
#ifndef SSDSIM_TEST_LINUX_TYPES_H
#define SSDSIM_TEST_LINUX_TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#endif
