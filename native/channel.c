/*
 * The channel to the service (Node's IPC channel, NODE_CHANNEL_FD) and the messages the spawner
 * sends on it: one JSON text and "\n" each, a handle as SCM_RIGHTS with a NODE_HANDLE message
 * (src/tools/bash/spawner-protocol.ts). Part of the native spawner (spawner.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "spawner.h"

int channel = -1;
bool channel_gone = false;

static int full_write(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* One message; with `fd` >= 0 it rides as the handle of a NODE_HANDLE message. Returns 0 when sent. */
int send_message(buf_t *msg, int fd) {
  if (channel_gone) return -1;
  buf_t out = {0};
  if (fd >= 0) {
    buf_str(&out, "{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Socket\",\"msg\":");
    buf_add(&out, msg->data, msg->len);
    buf_str(&out, "}\n");
  } else {
    buf_add(&out, msg->data, msg->len);
    buf_str(&out, "\n");
  }
  size_t done = 0;
  int rc = 0;
  if (fd >= 0) {
    /* The fd must ride with the message's first bytes: Node hands it to the NODE_HANDLE message it reads them with. */
    union {
      char space[CMSG_SPACE(sizeof(int))];
      struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {.iov_base = out.data, .iov_len = out.len};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    ssize_t w;
    do w = sendmsg(channel, &mh, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w < 0) rc = -1;
    else done = (size_t)w;
  }
  if (rc == 0 && full_write(channel, out.data + done, out.len - done)) rc = -1;
  if (rc) channel_gone = true; /* the read side sees the end and stops everything */
  free(out.data);
  return rc;
}

void send_simple(const char *type, long long id) {
  buf_t m = {0};
  buf_str(&m, "{\"type\":\"");
  buf_str(&m, type);
  buf_str(&m, "\",\"id\":");
  buf_int(&m, id);
  buf_str(&m, "}");
  send_message(&m, -1);
  free(m.data);
}

/* Sends the handle, then closes it here: the service holds the only copy (docs/adr/0471). */
bool send_handle(const char *type, long long id, pid_t pid, int *fd) {
  buf_t m = {0};
  buf_str(&m, "{\"type\":\"");
  buf_str(&m, type);
  buf_str(&m, "\",\"id\":");
  buf_int(&m, id);
  if (pid > 0) {
    buf_str(&m, ",\"pid\":");
    buf_int(&m, pid);
  }
  buf_str(&m, "}");
  bool sent = send_message(&m, *fd) == 0;
  free(m.data);
  if (sent) close_fd(fd);
  return sent;
}

void send_spawn_error(long long id, const char *file, int err) {
  const char *code = strerrorname_np(err);
  char codebuf[48];
  if (!code) {
    snprintf(codebuf, sizeof codebuf, "Unknown system error %d", -err);
    code = codebuf;
  }
  /* As Node's ChildProcess words it: these five are reported with the file, the rest without. */
  bool with_file = err == EACCES || err == EAGAIN || err == EMFILE || err == ENFILE || err == ENOENT;
  buf_t text = {0}, m = {0};
  buf_str(&text, "spawn");
  if (with_file) {
    buf_str(&text, " ");
    buf_str(&text, file);
  }
  size_t syscall_len = text.len;
  buf_str(&text, " ");
  buf_str(&text, code);
  buf_str(&m, "{\"type\":\"spawn-error\",\"id\":");
  buf_int(&m, id);
  buf_str(&m, ",\"error\":{\"message\":");
  buf_json(&m, text.data, text.len);
  buf_str(&m, ",\"code\":");
  buf_json(&m, code, strlen(code));
  buf_str(&m, ",\"errno\":");
  buf_int(&m, -err);
  buf_str(&m, ",\"syscall\":");
  buf_json(&m, text.data, syscall_len);
  if (with_file) {
    buf_str(&m, ",\"path\":");
    buf_json(&m, file, strlen(file));
  }
  buf_str(&m, "}}");
  send_message(&m, -1);
  free(text.data);
  free(m.data);
}
