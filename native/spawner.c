/*
 * The native spawner (docs/adr/0499-the-native-spawner.md): the same process and protocol as
 * src/tools/bash/spawner-main.ts (src/tools/bash/spawner-protocol.ts), but each command is started
 * with posix_spawn, which glibc does with clone(CLONE_VM|CLONE_VFORK): no page tables are copied,
 * where Node's child_process.spawn is a full fork() (docs/adr/0497).
 *
 * The channel is Node's IPC channel (fd NODE_CHANNEL_FD, `serialization: 'json'`): one JSON text and
 * "\n" per message; a message with a handle is {"cmd":"NODE_HANDLE","type":"net.Socket","msg":...}
 * sent in one sendmsg with the fd as SCM_RIGHTS. Messages with a "cmd" (Node's acks) are ignored.
 * Pipes are socketpairs, as libuv makes a child's stdio: the service shuts down and reads them as
 * it did the Node spawner's (docs/adr/0500-native-spawner-pipes-are-socketpairs.md).
 *
 * The files, one concept each, share spawner.h: buffer.c (message buffers, JSON out), json-reader.c
 * (JSON in), channel.c (the channel and the messages sent on it), launch.c (the child launch),
 * commands.c (reaping, exit reporting, stderr relay), pid-namespace.c (a command's PID namespace
 * and its init); this one reads the channel and runs the loop.
 *
 * C11 + glibc (2.34+: posix_spawn_file_actions_addclosefrom_np, sigabbrev_np, strerrorname_np).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "spawner.h"

void die(const char *what, const char *detail) {
  fprintf(stderr, "toolexec native spawner: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  kill_all();
  exit(2);
}

static void handle_line(const char *line, size_t n) {
  parser ps = {line, line + n};
  jv msg = {0};
  /* Never the text itself: a spawn request carries the command's environment, secrets included. */
  char where[64];
  if (parse_value(&ps, &msg, 0) || (skip_ws(&ps), ps.p != ps.end) || msg.type != J_OBJ) {
    snprintf(where, sizeof where, "%zu bytes, at byte %zu", n, (size_t)(ps.p - line));
    die("malformed message", where);
  }
  const jv *type = field(&msg, "type");
  if (field(&msg, "cmd")) {
    /* Node's own (NODE_HANDLE_ACK): nothing to do. */
  } else if (!type || type->type != J_STR) {
    die("a message without a type", NULL);
  } else if (!strcmp(type->s, "spawn")) {
    start_command(&msg);
  } else {
    const jv *idv = field(&msg, "id");
    command *c = idv && idv->type == J_NUM ? find_command((long long)idv->n) : NULL;
    if (!strcmp(type->s, "signal")) {
      int sig = signal_number(field(&msg, "signal"));
      /* Only a process not reaped yet: a reaped pid could be another's by now. */
      if (c && !c->reaped && sig) kill(c->pid, sig);
    } else if (!strcmp(type->s, "input")) {
      const jv *data = field(&msg, "data");
      if (c && c->stdin_fd >= 0 && data && data->type == J_STR) {
        (void)!write(c->stdin_fd, data->s, data->len);
        close_fd(&c->stdin_fd);
      }
    }
  }
  jv_free(&msg);
}

static void nothing(int sig) { (void)sig; }

int main(void) {
  const char *fd_text = getenv("NODE_CHANNEL_FD");
  if (!fd_text || !*fd_text) die("no NODE_CHANNEL_FD: start me with an 'ipc' stdio", NULL);
  channel = atoi(fd_text);
  /* Blocking: every write is whole. Close-on-exec: no command sees it. */
  fcntl(channel, F_SETFL, fcntl(channel, F_GETFL) & ~O_NONBLOCK);
  fcntl(channel, F_SETFD, FD_CLOEXEC);
  unsetenv("NODE_CHANNEL_FD");
  sigfillset(&all_signals);
  sigemptyset(&no_signals);

  /* A process manager signalling the service's whole group must not take this away (handlers, not SIG_IGN). */
  struct sigaction sa = {0};
  sa.sa_handler = nothing;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, NULL);
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd", strerror(errno));

  probe_pid_namespaces();
  probe_terminal();
  buf_t m = {0};
  /* What this build and host can do beyond the protocol's base: the service asks for nothing else, so
     a spawner built from older source keeps the wrapper shells (docs/adr/0542, 0555). */
  buf_str(&m, "{\"type\":\"ready\",\"features\":[\"merge-stderr\",\"block-fd\"");
  if (pid_namespaces) buf_str(&m, ",\"pid-namespace\"");
  if (process_groups) buf_str(&m, ",\"process-groups\"");
  buf_str(&m, "]}");
  send_message(&m, -1);
  free(m.data);

  buf_t in = {0};
  struct pollfd *fds = NULL;
  command **owners = NULL;
  while (!channel_gone) {
    size_t n = 2;
    fds = xrealloc(fds, (2 + 2 * ncommands) * sizeof *fds);
    owners = xrealloc(owners, (2 + 2 * ncommands) * sizeof *owners);
    fds[0] = (struct pollfd){.fd = channel, .events = POLLIN};
    fds[1] = (struct pollfd){.fd = sfd, .events = POLLIN};
    for (size_t i = 0; i < ncommands; i++) {
      if (commands[i]->stderr_fd >= 0) owners[n] = commands[i], fds[n++] = (struct pollfd){.fd = commands[i]->stderr_fd, .events = POLLIN};
      if (commands[i]->announce_fd >= 0) owners[n] = commands[i], fds[n++] = (struct pollfd){.fd = commands[i]->announce_fd, .events = POLLIN};
    }
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll", strerror(errno));
    }
    if (fds[1].revents) {
      struct signalfd_siginfo info;
      while (read(sfd, &info, sizeof info) > 0) {
      }
      reap();
    }
    /* The fds of a command dropped meanwhile are skipped: its owner's fd no longer matches. */
    for (size_t i = 2; i < n; i++) {
      if (!fds[i].revents) continue;
      bool live = false;
      for (size_t k = 0; k < ncommands; k++) live |= commands[k] == owners[i];
      if (!live) continue;
      command *c = owners[i];
      if (fds[i].fd == c->stderr_fd) relay_stderr(c);
      else if (fds[i].fd == c->announce_fd) announced(c);
    }
    if (fds[0].revents) {
      char chunk[65536];
      ssize_t r = read(channel, chunk, sizeof chunk);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      buf_add(&in, chunk, (size_t)r);
      size_t at = 0;
      char *nl;
      while ((nl = memchr(in.data + at, '\n', in.len - at))) {
        *nl = 0;
        handle_line(in.data + at, (size_t)(nl - (in.data + at)));
        at = (size_t)(nl - in.data) + 1;
      }
      memmove(in.data, in.data + at, in.len - at);
      in.len -= at;
    }
  }
  /* The channel's end: the service is gone (even by SIGKILL), and so are its commands. */
  kill_all();
  free(in.data);
  free(fds);
  free(owners);
  return 0;
}
