// SPDX-License-Identifier: GPL-2.0
/*
 * Runner: ./test_policy [substring...] runs the tests whose name contains one
 * of the substrings (all by default), each in a forked child unless
 * AC_TEST_NOFORK is set (for a debugger), and prints as its last line
 * "N passed, N failed".  Exit status 1 if anything failed.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "ac-policy.h"

unsigned long t_failed_checks;

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	if (++t_failed_checks > T_MAX_REPORTS)
		return;
	printf("    %s:%d: check failed: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (t_failed_checks == T_MAX_REPORTS)
		printf("    (further failures of this test not shown)\n");
}

static int t_selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (strstr(name, argv[i]))
			return 1;
	return 0;
}

/* 0 if the test passed. */
static int t_run_inline(const struct t_case *t)
{
	t_failed_checks = 0;
	t->fn();
	if (t_failed_checks > T_MAX_REPORTS)
		printf("    %lu failed checks in all\n", t_failed_checks);
	fflush(stdout);
	return t_failed_checks != 0;
}

static int t_run_forked(const struct t_case *t)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		_exit(t_run_inline(t));
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	if (WIFSIGNALED(status)) {
		printf("    killed by signal %d\n", WTERMSIG(status));
		return 1;
	}
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

int main(int argc, char **argv)
{
	static const struct t_case *const tables[] = {
		t_examples, t_map, t_model, t_occupancy, t_admit,
	};
	int nofork = !!getenv("AC_TEST_NOFORK");
	unsigned int passed = 0, failed = 0;
	const struct t_case *t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tables); i++) {
		for (t = tables[i]; t->name; t++) {
			int bad;

			if (!t_selected(t->name, argc, argv))
				continue;
			bad = nofork ? t_run_inline(t) : t_run_forked(t);
			printf("%s %s\n", bad ? "FAIL" : "ok  ", t->name);
			if (bad)
				failed++;
			else
				passed++;
		}
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

unsigned long t_heads_skipped;

void t_check_queued_units(const struct ac_policy *p)
{
	u32 u;
	int t;

	for (u = 0; u < AC_MAX_UNITS; u++)
		for (t = 0; t < AC_NR_TYPES; t++)
			CHECK_EQ(!!(p->queued_units[t][u / 64] & (1ULL << (u % 64))),
				 p->unit[u].nr[t] > 0);
}

/*
 * The mappings of spec section 2 by plain division: the reference the
 * prepared map (ac_map_chan()) is checked against.
 */
u32 t_ref_map(int mapping, u32 nr, u64 sector, u64 capacity, u32 stripe)
{
	u64 per, c;

	if (nr <= 1)
		return 0;
	if (mapping == AC_MAP_STRIPE)
		return (u32)((sector / (stripe ? stripe : 1)) % nr);
	per = capacity / nr;
	if (!per)
		return 0;
	c = sector / per;
	return c < nr ? (u32)c : nr - 1;
}

/* The defaults of ac-tunables.h, by field name. */
static const struct {
	const char *field;
	u32 def;
} t_defaults[] = {
#define AC_TUNABLE(_name, _field, _unit, _min, _max, _def, ...) { #_field, _def },
#include "ac-tunables.h"
};

static u32 t_default(const char *field)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t_defaults); i++)
		if (!strcmp(t_defaults[i].field, field))
			return t_defaults[i].def;
	CHECK_MSG(0, "no default for %s in ac-tunables.h", field);
	return 0;
}

void t_policy_init(struct ac_policy *p, u32 nr_channels)
{
	ac_policy_init(p, nr_channels);
	p->fifo_batch = t_default("policy.fifo_batch");
	p->writes_starved = t_default("policy.writes_starved");
	p->write_batch = t_default("policy.write_batch");
}
