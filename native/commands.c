/*
 * The commands started and not yet done with: reaped and their exit reported (after their relayed
 * stderr ended, docs/adr/0498), their start announced, their stderr relayed, killed with the
 * spawner. Part of the native spawner (spawner.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawner.h"

command **commands;
size_t ncommands;

command *find_command(long long id) {
  for (size_t i = 0; i < ncommands; i++)
    if (commands[i]->id == id) return commands[i];
  return NULL;
}

void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

void drop_command(command *c) {
  for (size_t i = 0; i < ncommands; i++)
    if (commands[i] == c) {
      commands[i] = commands[--ncommands];
      break;
    }
  close_fd(&c->stderr_fd);
  close_fd(&c->announce_fd);
  close_fd(&c->stdin_fd);
  free(c);
}

/* Sent once reaped and, when relayed, once stderr closed (docs/adr/0498). */
void report_exit(command *c) {
  if (!c->reaped || c->stderr_fd >= 0 || c->exit_sent) return;
  c->exit_sent = true;
  buf_t m = {0};
  buf_str(&m, "{\"type\":\"exit\",\"id\":");
  buf_int(&m, c->id);
  if (WIFSIGNALED(c->status)) {
    /* Node's names: glibc calls 29 POLL, Node SIGIO. */
    const char *abbrev = WTERMSIG(c->status) == SIGIO ? "IO" : sigabbrev_np(WTERMSIG(c->status));
    buf_str(&m, ",\"code\":null,\"signal\":");
    if (abbrev) {
      char name[32];
      snprintf(name, sizeof name, "SIG%s", abbrev);
      buf_json(&m, name, strlen(name));
    } else {
      buf_str(&m, "null");
    }
  } else {
    buf_str(&m, ",\"code\":");
    buf_int(&m, WEXITSTATUS(c->status));
    buf_str(&m, ",\"signal\":null");
  }
  if (c->relays_stderr) buf_str(&m, ",\"stderrEnded\":true");
  buf_str(&m, "}");
  send_message(&m, -1);
  free(m.data);
  if (c->announce_fd < 0) drop_command(c);
}

void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (size_t i = 0; i < ncommands; i++)
      if (commands[i]->pid == pid && !commands[i]->reaped) {
        commands[i]->reaped = true;
        commands[i]->status = status;
        report_exit(commands[i]);
        break;
      }
  }
}

void announced(command *c) {
  close_fd(&c->announce_fd);
  send_simple("started", c->id);
  if (c->exit_sent) drop_command(c);
}

void relay_stderr(command *c) {
  static char chunk[65536];
  ssize_t n = read(c->stderr_fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    close_fd(&c->stderr_fd);
    report_exit(c);
    return;
  }
  static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  buf_t m = {0};
  buf_str(&m, "{\"type\":\"stderr\",\"id\":");
  buf_int(&m, c->id);
  buf_str(&m, ",\"data\":\"");
  for (ssize_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned char)chunk[i] << 16;
    if (i + 1 < n) v |= (unsigned char)chunk[i + 1] << 8;
    if (i + 2 < n) v |= (unsigned char)chunk[i + 2];
    char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], i + 1 < n ? b64[(v >> 6) & 63] : '=', i + 2 < n ? b64[v & 63] : '='};
    buf_add(&m, q, 4);
  }
  buf_str(&m, "\"}");
  send_message(&m, -1);
  free(m.data);
}

int signal_number(const jv *name) {
  if (!name || name->type != J_STR || strncmp(name->s, "SIG", 3)) return 0;
  if (!strcmp(name->s, "SIGIO")) return SIGIO;
  for (int sig = 1; sig < NSIG; sig++) {
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev && !strcmp(abbrev, name->s + 3)) return sig;
  }
  return 0;
}

/* Every command still running is killed: with its group, or by its process when in this session. */
void kill_all(void) {
  for (size_t i = 0; i < ncommands; i++)
    if (!commands[i]->reaped) kill(commands[i]->same_session ? commands[i]->pid : -commands[i]->pid, SIGKILL);
}
