/*
 * What the native spawner's files share (spawner.c says what each holds): the message buffer, the
 * JSON values read, the channel, and the table of commands started.
 */
#ifndef TOOLEXEC_SPAWNER_H
#define TOOLEXEC_SPAWNER_H

#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Says what went wrong on stderr, kills every command still running, exits 2 (spawner.c). */
void die(const char *what, const char *detail);

/* ---------------------------------------------------------------- buffer.c */

void *xrealloc(void *p, size_t n);

typedef struct {
  char *data;
  size_t len, cap;
} buf_t;

void buf_add(buf_t *b, const void *src, size_t n);
void buf_str(buf_t *b, const char *s);
/* A JSON string: quotes, backslashes and control bytes escaped; UTF-8 passes as it is. */
void buf_json(buf_t *b, const char *s, size_t n);
void buf_int(buf_t *b, long long v);

/* ---------------------------------------------------------------- json-reader.c */

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

void jv_free(jv *v);
void skip_ws(parser *ps);
/* One value at `ps->p`, `depth` deep; 0 when read, -1 when malformed. */
int parse_value(parser *ps, jv *v, int depth);
const jv *field(const jv *obj, const char *key);
/* The key is there and `true`. */
bool flag(const jv *obj, const char *key);

/* ---------------------------------------------------------------- channel.c */

extern int channel;
/* Set once a write to the channel failed: the loop ends. */
extern bool channel_gone;

/* One message; with `fd` >= 0 it rides as the handle of a NODE_HANDLE message. Returns 0 when sent. */
int send_message(buf_t *msg, int fd);
/* {"type":…,"id":…} */
void send_simple(const char *type, long long id);
/* Sends the handle, then closes it here: the service holds the only copy (docs/adr/0471). */
bool send_handle(const char *type, long long id, pid_t pid, int *fd);
/* A spawn's failure, worded as Node's ChildProcess words it. */
void send_spawn_error(long long id, const char *file, int err);

/* ---------------------------------------------------------------- commands.c */

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

extern command **commands;
extern size_t ncommands;

command *find_command(long long id);
void close_fd(int *fd);
void drop_command(command *c);
/* Sent once reaped and, when relayed, once stderr closed (docs/adr/0498). */
void report_exit(command *c);
/* Every child exited since the last call: each command's status kept and its exit reported. */
void reap(void);
/* fd 3 had its first byte or its end: "started" is sent. */
void announced(command *c);
void relay_stderr(command *c);
/* "SIGTERM" → SIGTERM, with Node's names; 0 when unknown. */
int signal_number(const jv *name);
/* Every command still running is killed: with its group, or by its process when in this session. */
void kill_all(void);

/* ---------------------------------------------------------------- launch.c */

/* Every signal, and none: the child's default dispositions and empty mask (set by main). */
extern sigset_t all_signals, no_signals;

/* Set by probe_terminal at start: this process has no controlling terminal, so a command gets a
   process group of its own rather than a session (docs/adr/0576). */
extern bool process_groups;
void probe_terminal(void);
/* A spawn request: the command started and its handles sent, or a spawn-error. */
void start_command(const jv *req);
/* posix_spawn of `file` as libuv's execvp finds and runs it (the request env's PATH); 0 or an errno. */
int spawn_searching(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                    char **argv, char **envp);

/* ---------------------------------------------------------------- pid-namespace.c */

/* Set by the probe at start: this process can start a PID namespace with its own /proc. */
extern bool pid_namespaces;
void probe_pid_namespaces(void);
/* `file` started in a new PID namespace under an init of this program's own (docs/adr/0555); 0 or an errno. */
int start_in_pid_namespace(pid_t *pid, const char *file, char **argv, char **envp, const char *cwd, int out, int err,
                           int ann, bool own_session);

#endif
