/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's fixed-size types, for compiling src/ac-policy.[ch] in user space. */
#ifndef AC_USER_TYPES_H
#define AC_USER_TYPES_H
#include <stdbool.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
#endif
