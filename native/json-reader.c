/*
 * The JSON reader of the messages from the service: the whole grammar (a spawn request is one
 * object), nested MAX_DEPTH deep at most, strings as UTF-8 bytes that may hold NULs. Part of the
 * native spawner (spawner.c); test/security/fuzz-native-spawner.test.ts fuzzes it.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "spawner.h"

/* How deep arrays and objects may nest: deeper is a malformed message. */
#define MAX_DEPTH 32

void jv_free(jv *v) {
  free(v->s);
  for (size_t i = 0; i < v->count; i++) {
    jv_free(&v->kids[i]);
    if (v->keys) free(v->keys[i]);
  }
  free(v->kids);
  free(v->keys);
  free(v->keylens);
}

void skip_ws(parser *ps) {
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
  skip_ws(ps);
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
      skip_ws(ps);
      if (ps->p >= ps->end || *ps->p != '"') return -1;
      v->count++;
      if (parse_string(ps, &v->keys[v->count - 1], &v->keylens[v->count - 1])) return -1;
      skip_ws(ps);
      if (ps->p >= ps->end || *ps->p++ != ':') return -1;
    } else {
      v->count++;
    }
    if (parse_value(ps, &v->kids[v->count - 1], depth + 1)) return -1;
    skip_ws(ps);
    if (ps->p >= ps->end) return -1;
    char c = *ps->p++;
    if (c == closer) return 0;
    if (c != ',') return -1;
  }
}

int parse_value(parser *ps, jv *v, int depth) {
  if (depth > MAX_DEPTH) return -1;
  skip_ws(ps);
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

const jv *field(const jv *obj, const char *key) {
  for (size_t i = 0; i < obj->count; i++)
    if (obj->keylens[i] == strlen(key) && !memcmp(obj->keys[i], key, obj->keylens[i])) return &obj->kids[i];
  return NULL;
}

bool flag(const jv *obj, const char *key) {
  const jv *v = field(obj, key);
  return v && v->type == J_BOOL && v->b;
}
