/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's fixed-size types, for compiling ac-policy.[ch] in user space. */
#ifndef AC_USER_TYPES_H
#define AC_USER_TYPES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

/* The glue's occupancy counters are atomic_t; here plain ints. */
typedef struct {
	int counter;
} atomic_t;

static inline int atomic_read(const atomic_t *v)
{
	return v->counter;
}

static inline void atomic_set(atomic_t *v, int i)
{
	v->counter = i;
}

static inline void atomic_inc(atomic_t *v)
{
	v->counter++;
}

static inline void atomic_dec(atomic_t *v)
{
	v->counter--;
}

/* The kernel's division and bit helpers (linux/math64.h, linux/bitops.h). */
static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline unsigned long __ffs64(u64 word)
{
	return (unsigned long)__builtin_ctzll(word);
}

/* linux/minmax.h's, without its type checks */
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define clamp(v, lo, hi)	min(max(v, lo), hi)

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
/* the kernel's, from compiler_types.h (glibc's sys/cdefs.h may have it) */
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#endif
