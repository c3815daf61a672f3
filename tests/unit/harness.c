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
		t_examples, t_map, t_model, t_occupancy,
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
				 p->grp[u].nr[t] > 0);
}

unsigned long t_shortcut_picks;

/*
 * Whether ac_policy_pick() takes its shortcut from @p, as its comment
 * states the conditions: a read phase under way, no dies, writes not held,
 * and every queued read of the wanted type in one unit.
 */
static bool t_shortcut_applies(const struct ac_policy *p)
{
	enum ac_type t = p->queued[AC_READ_SYNC] ? AC_READ_SYNC : AC_READ_ASYNC;
	u32 u;

	if (ac_policy_dies(p) || p->writes_held || !p->phase_left ||
	    p->dir != AC_DIR_READ || !p->queued[t])
		return false;
	for (u = 0; u < ac_policy_units(p); u++)
		if (p->grp[u].nr[t])
			return p->grp[u].nr[t] == p->queued[t];
	return false;
}

/* Check that pick @b from state @pb is pick @a from state @pa; @what says why. */
static void t_same_pick(struct ac_pick a, const struct ac_policy *pa,
			struct ac_pick b, const struct ac_policy *pb,
			const char *what)
{
	CHECK_MSG(a.kind == b.kind && a.type == b.type &&
		  a.group == b.group && a.capped == b.capped,
		  "%s: the pick differs", what);
	CHECK_MSG(!memcmp(pa, pb, sizeof(*pa)),
		  "%s: the policy ends different", what);
}

unsigned long t_lone_applied;

/*
 * ac_policy_lone() from @p, four ways (as given; with the request late;
 * with its unit busy, a write of ours there or not; with writes held),
 * against what it stands for: ac_policy_add(), the general pick with the
 * request's own head the only one, and ac_policy_dispatched().  Where it
 * declines (dies, writes held) it must change nothing.
 */
void t_lone_check(const struct ac_policy *p, unsigned int group, int type,
		  unsigned long long expire, unsigned long long now)
{
	static struct ac_policy lone, general;
	static struct ac_occupancy busy;
	struct ac_fifo_heads h = { 0 };
	struct ac_pick k, k2;
	int way;

	if (ac_policy_queued(p))
		return;
	for (way = 0; way < 4; way++) {
		unsigned long long at = way == 1 ? expire : now;

		memcpy(&lone, p, sizeof(lone));
		if (way == 2) {
			memset(&busy, 0, sizeof(busy));
			atomic_set(&busy.all[ac_idx(group)], 1 + (int)(at % 3));
			atomic_set(&busy.writes[ac_idx(group)], (int)(at % 2));
			lone.occ = &busy;
		}
		lone.writes_held = way == 3;
		memcpy(&general, &lone, sizeof(general));
		k = ac_policy_lone(&lone, group, (enum ac_type)type, expire,
				   at);
		if (ac_policy_dies(&general) || general.writes_held) {
			CHECK_MSG(k.kind == AC_PICK_NONE &&
				  !memcmp(&lone, &general, sizeof(lone)),
				  "lone: declined, yet changed the policy");
			continue;
		}
		ac_policy_add(&general, group, (enum ac_type)type);
		memset(&h, 0, sizeof(h));
		h.valid[type] = true;
		h.expire[type] = expire;
		h.unit[type] = group;
		k2 = ac_policy_pick_general(&general, &h, at);
		CHECK_MSG(k2.kind != AC_PICK_NONE, "lone: the general pick found none");
		if (k2.kind != AC_PICK_NONE)
			ac_policy_dispatched(&general, group, k2.type,
					     k2.kind == AC_PICK_EXPIRED);
		t_same_pick(k, &lone, k2, &general,
			    "the lone step against add, pick and dispatch");
		t_lone_applied++;
	}
}

struct ac_pick t_pick(struct ac_policy *p, const struct ac_fifo_heads *heads,
		      unsigned long long now)
{
	bool due = ac_policy_heads_due(p);
	struct ac_policy without, general;
	struct ac_pick k, k2;

	memcpy(&without, p, sizeof(without));
	memcpy(&general, p, sizeof(general));
	if (t_shortcut_applies(p))
		t_shortcut_picks++;
	k = ac_policy_pick(p, heads, now);
	k2 = ac_policy_pick_general(&general, heads, now);
	t_same_pick(k, p, k2, &general, "the shortcut against the general pick");
	if (due)
		return k;
	t_heads_skipped++;
	k2 = ac_policy_pick(&without, NULL, now);
	t_same_pick(k, p, k2, &without, "heads not due, yet without them");
	return k;
}
