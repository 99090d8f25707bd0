/*
 * With the sandbox off, the spawner itself starts a command's PID namespace, and its first process
 * is this file's init, a copy of the spawner that never execs (docs/adr/0555-the-native-spawner-is-the-pid-namespace-init.md):
 * what `setpriv --pdeathsig KILL unshare --pid --fork --kill-child --mount-proc` and the init shell
 * of src/tools/bash/containment.ts did, in one clone. Part of the native spawner (spawner.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawner.h"

bool pid_namespaces;

/* Its write end is held by the spawner alone: an init that sees it closed knows the spawner died before PDEATHSIG was set. */
static int alive[2] = {-1, -1};

/* Fork-like (no stack given): the spawner is single-threaded, and the child never returns to its loop. */
static pid_t clone_namespace(void) {
  return (pid_t)syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);
}

/* What `unshare --mount-proc` does: mounts made here stay here, and /proc shows only this namespace. */
static const char *mount_proc(void) {
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL)) return "making / private";
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) return "mounting /proc";
  return NULL;
}

void probe_pid_namespaces(void) {
  if (pipe2(alive, O_CLOEXEC)) return;
  pid_t pid = clone_namespace();
  if (pid == 0) _exit(mount_proc() ? 1 : 0);
  int status;
  pid_namespaces = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A SIGTERM to the init (the service, or `kill -TERM 1` inside) goes to every process of the namespace, as NAMESPACE_INIT's trap did. */
static void on_term(int sig) {
  (void)sig;
  kill(-1, SIGTERM);
  _exit(143);
}

static _Noreturn void init_failed(const char *what, int err) {
  dprintf(2, "toolexec native spawner: %s: %s\n", what, strerror(err));
  _exit(125);
}

/* The init: fds 0 /dev/null, 1 the output pipe, 2 the stderr pipe, 3 the start byte's; runs the command and ends with it. */
static _Noreturn void run_init(const char *file, char **argv, char **envp, const char *cwd, int out, int err, int ann,
                               bool own_session) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  close(alive[1]);
  struct pollfd gone = {.fd = alive[0], .events = POLLIN};
  if (poll(&gone, 1, 0) > 0) _exit(137);
  int null = open("/dev/null", O_RDWR);
  if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || (ann >= 0 && dup2(ann, 3) < 0)) _exit(125);
  /* Nothing of the spawner's (the channel, other commands' pipes) stays open here. */
  close_range(ann >= 0 ? 4 : 3, ~0U, 0);
  /* Its own group, as the spawner gives a command (docs/adr/0476, 0576): a signal to its group stays
     out of the spawner's; a session only where the spawner has a terminal (launch.c). */
  if (own_session && process_groups) setpgid(0, 0);
  else if (own_session) setsid();
  struct sigaction sa = {0};
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, NULL);
  signal(SIGINT, SIG_DFL);
  signal(SIGHUP, SIG_DFL);
  sigprocmask(SIG_SETMASK, &no_signals, NULL);
  const char *failed = mount_proc();
  if (failed) init_failed(failed, errno);
  if (ann >= 0) {
    (void)!write(3, ".", 1);
    close(3);
  }

  /* The command: stderr on the output pipe (one pipe, written in order), fd 3 closed, default signals. */
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  posix_spawn_file_actions_addchdir_np(&fa, cwd);
  posix_spawnattr_setsigdefault(&attr, &all_signals);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t command;
  int spawn_err = spawn_searching(&command, file, &fa, &attr, argv, envp);
  if (spawn_err) {
    dprintf(2, "toolexec native spawner: %s: %s\n", file, strerror(spawn_err));
    _exit(127);
  }
  close(1);
  /* Every process of the namespace is reaped; the command's end is the namespace's (the kernel kills the rest). */
  for (;;) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid == command) _exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
    if (pid < 0 && errno == ECHILD) _exit(127);
  }
}

int start_in_pid_namespace(pid_t *pid, const char *file, char **argv, char **envp, const char *cwd, int out, int err,
                           int ann, bool own_session) {
  if (!pid_namespaces) return ENOSYS;
  pid_t child = clone_namespace();
  if (child < 0) return errno;
  if (child == 0) run_init(file, argv, envp, cwd, out, err, ann, own_session);
  *pid = child;
  return 0;
}
