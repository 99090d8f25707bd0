/*
 * The child launch: a spawn request's argv, env and pipes, and posix_spawn of the file as libuv
 * would find and run it (PATH search, a script without #! run by /bin/sh), in a process group of its
 * own unless `sameSession` (a session of its own where this spawner has a controlling terminal).
 * Part of the native spawner (spawner.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spawner.h"

/* A socketpair as libuv makes a child's stdio; both ends close-on-exec, above fd 4 (the child's dup targets). */
static int pair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)) return -1;
  for (int i = 0; i < 2; i++)
    if (fds[i] <= 4) {
      int moved = fcntl(fds[i], F_DUPFD_CLOEXEC, 16);
      close(fds[i]);
      fds[i] = moved;
    }
  if (fds[0] < 0 || fds[1] < 0) return -1;
  return 0;
}

/* The request env's PATH, as libuv looks a file without a slash up (default /usr/bin:/bin). */
static const char *path_of(char **envp) {
  for (char **e = envp; *e; e++)
    if (!strncmp(*e, "PATH=", 5)) return *e + 5;
  return "/usr/bin:/bin";
}

/* A file the kernel cannot exec (no #! line) runs as a shell script, as libuv's execvp does. */
static int spawn_one(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                     char **argv, char **envp) {
  int err = posix_spawn(pid, path, fa, attr, argv, envp);
  if (err != ENOEXEC) return err;
  size_t argc = 0;
  while (argv[argc]) argc++;
  char **script = xrealloc(NULL, (argc + 2) * sizeof *script);
  script[0] = "/bin/sh";
  script[1] = (char *)path;
  memcpy(script + 2, argv + 1, argc * sizeof *script); /* argv[1..] and its NULL */
  err = posix_spawn(pid, "/bin/sh", fa, attr, script, envp);
  free(script);
  return err;
}

int spawn_searching(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                    char **argv, char **envp) {
  if (!*file) return ENOENT;
  if (strchr(file, '/')) return spawn_one(pid, file, fa, attr, argv, envp);
  const char *path = path_of(envp);
  bool eacces = false;
  int last = ENOENT;
  size_t flen = strlen(file);
  for (const char *p = path;; p++) {
    const char *colon = strchrnul(p, ':');
    size_t dlen = (size_t)(colon - p);
    char *candidate = xrealloc(NULL, dlen + flen + 2);
    memcpy(candidate, p, dlen);
    size_t at = dlen;
    if (dlen && candidate[dlen - 1] != '/') candidate[at++] = '/';
    memcpy(candidate + at, file, flen + 1);
    /* An absolute candidate that is not there costs no vfork; a relative one depends on the cwd. */
    int err = candidate[0] == '/' && access(candidate, F_OK) ? errno
                                                              : spawn_one(pid, candidate, fa, attr, argv, envp);
    free(candidate);
    if (err == 0) return 0;
    if (err == EACCES) eacces = true;
    else if (err != ENOENT && err != ENOTDIR) return err;
    last = err;
    if (!*colon) break;
    p = colon;
  }
  return eacces ? EACCES : last;
}

bool process_groups;

/* The service starts this spawner in a session of its own (setsid: no controlling terminal), so
   `/dev/tty` opens nothing (ENXIO; ENOENT where there is no such node). Then a command needs no
   session of its own to be kept from a terminal, only a group of its own for its `kill 0`, and it
   stays in this session's autogroup, where its nice value counts
   (docs/adr/0576-commands-start-in-a-process-group-of-their-own.md). Anything else (a terminal, an
   error not known to mean none) keeps a session per command. */
void probe_terminal(void) {
  int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty >= 0) close(tty);
  process_groups = tty < 0 && (errno == ENXIO || errno == ENOENT);
}

static bool has_nul(const jv *v) { return v->type != J_STR || memchr(v->s, 0, v->len) != NULL; }

sigset_t all_signals, no_signals;

void start_command(const jv *req) {
  const jv *idv = field(req, "id"), *file = field(req, "file"), *args = field(req, "args"), *cwd = field(req, "cwd"),
           *env = field(req, "env");
  if (!idv || idv->type != J_NUM || !file || file->type != J_STR || !args || args->type != J_ARR || !cwd ||
      cwd->type != J_STR || !env || env->type != J_OBJ)
    die("malformed spawn request", NULL);
  long long id = (long long)idv->n;
  bool announces = flag(req, "announcesStart"), takes_input = flag(req, "takesInput"),
       same_session = flag(req, "sameSession"), reports = announces && flag(req, "reportsStatus"),
       merges = flag(req, "mergesStderr") && !reports, namespaced = flag(req, "pidNamespace"),
       unblocks = announces && flag(req, "unblocksStart");

  bool nul = has_nul(file) || has_nul(cwd);
  char **argv = xrealloc(NULL, (args->count + 2) * sizeof *argv);
  argv[0] = file->s;
  for (size_t i = 0; i < args->count; i++) {
    if (args->kids[i].type != J_STR) die("malformed spawn request", "an arg is not a string");
    nul |= has_nul(&args->kids[i]);
    argv[i + 1] = args->kids[i].s;
  }
  argv[args->count + 1] = NULL;
  char **envp = xrealloc(NULL, (env->count + 1) * sizeof *envp);
  size_t nenv = 0;
  for (size_t i = 0; i < env->count; i++) {
    const jv *value = &env->kids[i];
    /* Node leaves out an undefined value; any other it makes a string of (all the service sends are strings). */
    if (value->type != J_STR) die("malformed spawn request", "an env value is not a string");
    nul |= has_nul(value) || memchr(env->keys[i], 0, env->keylens[i]) != NULL;
    char *entry = xrealloc(NULL, env->keylens[i] + value->len + 2);
    memcpy(entry, env->keys[i], env->keylens[i]);
    entry[env->keylens[i]] = '=';
    memcpy(entry + env->keylens[i] + 1, value->s, value->len + 1);
    envp[nenv++] = entry;
  }
  envp[nenv] = NULL;

  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1}, ann[2] = {-1, -1}, st[2] = {-1, -1};
  int failed = 0;
  pid_t pid = 0;
  /* The init reads no input and reports no status of bubblewrap's. */
  if (nul || (namespaced && (takes_input || reports || merges))) failed = EINVAL;
  else if ((takes_input && pair(in)) || pair(out) || (!merges && pair(err)) || (announces && pair(ann)) ||
           (reports && pair(st)))
    failed = errno;
  /* bubblewrap's `--block-fd 3` reads this byte once its sandbox is set up and closes fd 3, which its
     monitor closed already: the end on this side is the start's (docs/adr/0541). Written before the
     spawn, it never blocks bwrap; the buffer of a fresh socketpair always holds one byte. */
  else if (unblocks && write(ann[0], ".", 1) != 1)
    failed = errno;
  if (!failed && namespaced) {
    failed = start_in_pid_namespace(&pid, file->s, argv, envp, cwd->s, out[1], err[1], ann[1], !same_session);
  } else if (!failed) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    if (takes_input) posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0); /* as libuv's 'ignore' */
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    /* Merged: stdout's pipe is stderr too, so the two interleave as written with no shell to say
       `2>&1` (docs/adr/0540). */
    posix_spawn_file_actions_adddup2(&fa, merges ? out[1] : err[1], 2);
    if (announces) posix_spawn_file_actions_adddup2(&fa, ann[1], 3);
    if (reports) posix_spawn_file_actions_adddup2(&fa, st[1], 4);
    /* Every other fd closed, whatever this process was given (everything of its own is close-on-exec too). */
    posix_spawn_file_actions_addclosefrom_np(&fa, reports ? 5 : announces ? 4 : 3);
    posix_spawn_file_actions_addchdir_np(&fa, cwd->s);
    /* Default dispositions and an empty mask, whatever this process blocks or handles. */
    posix_spawnattr_setsigdefault(&attr, &all_signals);
    posix_spawnattr_setsigmask(&attr, &no_signals);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (!same_session) flags |= process_groups ? POSIX_SPAWN_SETPGROUP : POSIX_SPAWN_SETSID;
    posix_spawnattr_setflags(&attr, flags);
    posix_spawnattr_setpgroup(&attr, 0); /* with SETPGROUP: a group led by the command itself */
    failed = spawn_searching(&pid, file->s, &fa, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
  }
  for (size_t i = 0; i < nenv; i++) free(envp[i]);
  free(envp);
  free(argv);
  /* The child's ends are the child's now. */
  close_fd(&in[0]), close_fd(&out[1]), close_fd(&err[1]), close_fd(&ann[1]), close_fd(&st[1]);
  if (failed) {
    close_fd(&in[1]), close_fd(&out[0]), close_fd(&err[0]), close_fd(&ann[0]), close_fd(&st[0]);
    send_spawn_error(id, file->s, failed);
    return;
  }
  command *c = xrealloc(NULL, sizeof *c);
  *c = (command){.id = id, .pid = pid, .same_session = same_session, .stderr_fd = -1, .announce_fd = ann[0],
                 .stdin_fd = -1, .relays_stderr = !reports};
  commands = xrealloc(commands, (ncommands + 1) * sizeof *commands);
  commands[ncommands++] = c;
  /* The service's ends are non-blocking, as libuv made them for the Node spawner (one file description, shared). */
  int ends[] = {in[1], out[0], err[0], st[0], ann[0]};
  for (size_t i = 0; i < sizeof ends / sizeof *ends; i++)
    if (ends[i] >= 0) fcntl(ends[i], F_SETFL, fcntl(ends[i], F_GETFL) | O_NONBLOCK);
  /* Sent as its handle, stdout is never read here. Not sent, nothing could read it: the service kills the command. */
  send_handle("spawned", id, pid, &out[0]);
  close_fd(&out[0]);
  if (takes_input && !send_handle("stdin", id, 0, &in[1])) c->stdin_fd = in[1];
  if (reports) {
    send_handle("status", id, 0, &st[0]);
    close_fd(&st[0]);
    send_handle("stderr-pipe", id, 0, &err[0]);
    close_fd(&err[0]);
  } else {
    c->stderr_fd = err[0];
  }
}
