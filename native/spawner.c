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
 * C11 + glibc (2.34+: posix_spawn_file_actions_addclosefrom_np, sigabbrev_np, strerrorname_np).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_DEPTH 32

/* ---------------------------------------------------------------- helpers */

static void die(const char *what, const char *detail);

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory", NULL);
  return q;
}

typedef struct {
  char *data;
  size_t len, cap;
} buf_t;

static void buf_add(buf_t *b, const void *src, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->data = xrealloc(b->data, b->cap);
  }
  memcpy(b->data + b->len, src, n);
  b->len += n;
  b->data[b->len] = 0;
}

static void buf_str(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

/* A JSON string: quotes, backslashes and control bytes escaped; UTF-8 passes as it is. */
static void buf_json(buf_t *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  buf_add(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      buf_add(b, e, 2);
    } else if (c < 0x20) {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      buf_add(b, e, 6);
    } else {
      buf_add(b, &s[i], 1);
    }
  }
  buf_add(b, "\"", 1);
}

static void buf_int(buf_t *b, long long v) {
  char t[32];
  snprintf(t, sizeof t, "%lld", v);
  buf_str(b, t);
}

/* ---------------------------------------------------------------- JSON in */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
  int type;
  bool b;
  double n;
  char *s; /* J_STR: bytes, NUL-terminated, `len` may include NULs */
  size_t len;
  size_t count;   /* J_ARR / J_OBJ */
  struct jv *kids;
  char **keys;    /* J_OBJ */
  size_t *keylens;
} jv;

typedef struct {
  const char *p, *end;
} parser;

static void jv_free(jv *v) {
  free(v->s);
  for (size_t i = 0; i < v->count; i++) {
    jv_free(&v->kids[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->kids);
  free(v->keys);
  free(v->keylens);
}

static void ws(parser *ps) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static int hex4(parser *ps, unsigned *out) {
  if (ps->end - ps->p < 4) return -1;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = *ps->p++;
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static void utf8(buf_t *b, unsigned cp) {
  unsigned char o[4];
  size_t n;
  if (cp < 0x80) o[0] = (unsigned char)cp, n = 1;
  else if (cp < 0x800) o[0] = (unsigned char)(0xc0 | cp >> 6), o[1] = (unsigned char)(0x80 | (cp & 0x3f)), n = 2;
  else if (cp < 0x10000)
    o[0] = (unsigned char)(0xe0 | cp >> 12), o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)),
    o[2] = (unsigned char)(0x80 | (cp & 0x3f)), n = 3;
  else
    o[0] = (unsigned char)(0xf0 | cp >> 18), o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f)),
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f)), o[3] = (unsigned char)(0x80 | (cp & 0x3f)), n = 4;
  buf_add(b, o, n);
}

static int parse_string(parser *ps, char **out, size_t *outlen) {
  buf_t b = {0};
  buf_add(&b, "", 0);
  ps->p++; /* the opening quote */
  while (ps->p < ps->end) {
    unsigned char c = (unsigned char)*ps->p++;
    if (c == '"') {
      *out = b.data;
      *outlen = b.len;
      return 0;
    }
    if (c < 0x20) break;
    if (c != '\\') {
      buf_add(&b, &c, 1);
      continue;
    }
    if (ps->p >= ps->end) break;
    char e = *ps->p++;
    unsigned cp;
    switch (e) {
      case '"': case '\\': case '/': buf_add(&b, &e, 1); continue;
      case 'b': buf_add(&b, "\b", 1); continue;
      case 'f': buf_add(&b, "\f", 1); continue;
      case 'n': buf_add(&b, "\n", 1); continue;
      case 'r': buf_add(&b, "\r", 1); continue;
      case 't': buf_add(&b, "\t", 1); continue;
      case 'u':
        if (hex4(ps, &cp)) goto bad;
        if (cp >= 0xd800 && cp < 0xdc00) {
          unsigned lo;
          parser save = *ps;
          if (ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u' && (ps->p += 2, !hex4(ps, &lo)) &&
              lo >= 0xdc00 && lo < 0xe000) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else {
            /* A lone surrogate: Node writes U+FFFD when it makes UTF-8 of it. */
            *ps = save;
            cp = 0xfffd;
          }
        } else if (cp >= 0xdc00 && cp < 0xe000) {
          cp = 0xfffd;
        }
        utf8(&b, cp);
        continue;
      default: goto bad;
    }
  }
bad:
  free(b.data);
  return -1;
}

static int parse_value(parser *ps, jv *v, int depth);

static int parse_number(parser *ps, jv *v) {
  const char *s = ps->p;
  if (ps->p < ps->end && *ps->p == '-') ps->p++;
  if (ps->p >= ps->end) return -1;
  if (*ps->p == '0') ps->p++;
  else if (*ps->p >= '1' && *ps->p <= '9') while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  else return -1;
  if (ps->p < ps->end && *ps->p == '.') {
    ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') return -1;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  }
  if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
    ps->p++;
    if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
    if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9') return -1;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
  }
  char t[64];
  size_t n = (size_t)(ps->p - s);
  if (n >= sizeof t) return -1;
  memcpy(t, s, n);
  t[n] = 0;
  v->type = J_NUM;
  v->n = strtod(t, NULL);
  return 0;
}

static int literal(parser *ps, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n)) return -1;
  ps->p += n;
  return 0;
}

static int parse_container(parser *ps, jv *v, int depth, bool object) {
  char closer = object ? '}' : ']';
  v->type = object ? J_OBJ : J_ARR;
  ps->p++;
  ws(ps);
  if (ps->p < ps->end && *ps->p == closer) {
    ps->p++;
    return 0;
  }
  for (;;) {
    v->kids = xrealloc(v->kids, (v->count + 1) * sizeof *v->kids);
    memset(&v->kids[v->count], 0, sizeof *v->kids);
    if (object) {
      v->keys = xrealloc(v->keys, (v->count + 1) * sizeof *v->keys);
      v->keylens = xrealloc(v->keylens, (v->count + 1) * sizeof *v->keylens);
      v->keys[v->count] = NULL;
      ws(ps);
      if (ps->p >= ps->end || *ps->p != '"') return -1;
      v->count++;
      if (parse_string(ps, &v->keys[v->count - 1], &v->keylens[v->count - 1])) return -1;
      ws(ps);
      if (ps->p >= ps->end || *ps->p++ != ':') return -1;
    } else {
      v->count++;
    }
    if (parse_value(ps, &v->kids[v->count - 1], depth + 1)) return -1;
    ws(ps);
    if (ps->p >= ps->end) return -1;
    char c = *ps->p++;
    if (c == closer) return 0;
    if (c != ',') return -1;
  }
}

static int parse_value(parser *ps, jv *v, int depth) {
  if (depth > MAX_DEPTH) return -1;
  ws(ps);
  if (ps->p >= ps->end) return -1;
  switch (*ps->p) {
    case '{': return parse_container(ps, v, depth, true);
    case '[': return parse_container(ps, v, depth, false);
    case '"': v->type = J_STR; return parse_string(ps, &v->s, &v->len);
    case 't': v->type = J_BOOL; v->b = true; return literal(ps, "true");
    case 'f': v->type = J_BOOL; v->b = false; return literal(ps, "false");
    case 'n': v->type = J_NULL; return literal(ps, "null");
    default: return parse_number(ps, v);
  }
}

static const jv *field(const jv *obj, const char *key) {
  for (size_t i = 0; i < obj->count; i++)
    if (obj->keylens[i] == strlen(key) && !memcmp(obj->keys[i], key, obj->keylens[i])) return &obj->kids[i];
  return NULL;
}

static bool flag(const jv *obj, const char *key) {
  const jv *v = field(obj, key);
  return v && v->type == J_BOOL && v->b;
}

/* ---------------------------------------------------------------- the channel */

static int channel = -1;
static bool channel_gone = false;

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
static int send_message(buf_t *msg, int fd) {
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

/* ---------------------------------------------------------------- commands */

typedef struct command {
  long long id;
  pid_t pid;
  bool same_session, reaped, exit_sent;
  int status;
  int stderr_fd;   /* relayed stderr, or -1 (closed, or a handle) */
  int announce_fd; /* fd 3's read end until its first byte or end, or -1 */
  int stdin_fd;    /* a stdin whose handle could not be sent, or -1 */
  bool relays_stderr;
} command;

static command **commands;
static size_t ncommands;

static command *find(long long id) {
  for (size_t i = 0; i < ncommands; i++)
    if (commands[i]->id == id) return commands[i];
  return NULL;
}

static void close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

static void drop(command *c) {
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

static void simple(const char *type, long long id) {
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
static bool send_handle(const char *type, long long id, pid_t pid, int *fd) {
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

/* Sent once reaped and, when relayed, once stderr closed (docs/adr/0498). */
static void maybe_exit(command *c) {
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
  if (c->announce_fd < 0) drop(c);
}

static void spawn_error(long long id, const char *file, int err) {
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

static int spawn_searching(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char **argv, char **envp) {
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

static bool has_nul(const jv *v) { return v->type != J_STR || memchr(v->s, 0, v->len) != NULL; }

static sigset_t all_signals, no_signals;

static void start(const jv *req) {
  const jv *idv = field(req, "id"), *file = field(req, "file"), *args = field(req, "args"), *cwd = field(req, "cwd"),
           *env = field(req, "env");
  if (!idv || idv->type != J_NUM || !file || file->type != J_STR || !args || args->type != J_ARR || !cwd ||
      cwd->type != J_STR || !env || env->type != J_OBJ)
    die("malformed spawn request", NULL);
  long long id = (long long)idv->n;
  bool announces = flag(req, "announcesStart"), takes_input = flag(req, "takesInput"),
       same_session = flag(req, "sameSession"), reports = announces && flag(req, "reportsStatus");

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
  if (nul) failed = EINVAL;
  else if ((takes_input && pair(in)) || pair(out) || pair(err) || (announces && pair(ann)) || (reports && pair(st)))
    failed = errno;
  if (!failed) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    if (takes_input) posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    else posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDWR, 0); /* as libuv's 'ignore' */
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (announces) posix_spawn_file_actions_adddup2(&fa, ann[1], 3);
    if (reports) posix_spawn_file_actions_adddup2(&fa, st[1], 4);
    /* Every other fd closed, whatever this process was given (everything of its own is close-on-exec too). */
    posix_spawn_file_actions_addclosefrom_np(&fa, reports ? 5 : announces ? 4 : 3);
    posix_spawn_file_actions_addchdir_np(&fa, cwd->s);
    /* Default dispositions and an empty mask, whatever this process blocks or handles. */
    posix_spawnattr_setsigdefault(&attr, &all_signals);
    posix_spawnattr_setsigmask(&attr, &no_signals);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
    if (!same_session) flags |= POSIX_SPAWN_SETSID;
    posix_spawnattr_setflags(&attr, flags);
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
    spawn_error(id, file->s, failed);
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

static void reap(void) {
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    for (size_t i = 0; i < ncommands; i++)
      if (commands[i]->pid == pid && !commands[i]->reaped) {
        commands[i]->reaped = true;
        commands[i]->status = status;
        maybe_exit(commands[i]);
        break;
      }
  }
}

static void announced(command *c) {
  close_fd(&c->announce_fd);
  simple("started", c->id);
  if (c->exit_sent) drop(c);
}

static void relay_stderr(command *c) {
  static char chunk[65536];
  ssize_t n = read(c->stderr_fd, chunk, sizeof chunk);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    close_fd(&c->stderr_fd);
    maybe_exit(c);
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

static int signal_number(const jv *name) {
  if (!name || name->type != J_STR || strncmp(name->s, "SIG", 3)) return 0;
  if (!strcmp(name->s, "SIGIO")) return SIGIO;
  for (int sig = 1; sig < NSIG; sig++) {
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev && !strcmp(abbrev, name->s + 3)) return sig;
  }
  return 0;
}

/* ---------------------------------------------------------------- the loop */

/* Every command still running is killed: with its group, or by its process when in this session. */
static void kill_all(void) {
  for (size_t i = 0; i < ncommands; i++)
    if (!commands[i]->reaped) kill(commands[i]->same_session ? commands[i]->pid : -commands[i]->pid, SIGKILL);
}

static void die(const char *what, const char *detail) {
  fprintf(stderr, "toolexec native spawner: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  kill_all();
  exit(2);
}

static void handle_line(const char *line, size_t n) {
  parser ps = {line, line + n};
  jv msg = {0};
  /* Never the text itself: a spawn request carries the command's environment, secrets included. */
  char where[64];
  if (parse_value(&ps, &msg, 0) || (ws(&ps), ps.p != ps.end) || msg.type != J_OBJ) {
    snprintf(where, sizeof where, "%zu bytes, at byte %zu", n, (size_t)(ps.p - line));
    die("malformed message", where);
  }
  const jv *type = field(&msg, "type");
  if (field(&msg, "cmd")) {
    /* Node's own (NODE_HANDLE_ACK): nothing to do. */
  } else if (!type || type->type != J_STR) {
    die("a message without a type", NULL);
  } else if (!strcmp(type->s, "spawn")) {
    start(&msg);
  } else {
    const jv *idv = field(&msg, "id");
    command *c = idv && idv->type == J_NUM ? find((long long)idv->n) : NULL;
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

  buf_t m = {0};
  buf_str(&m, "{\"type\":\"ready\"}");
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
