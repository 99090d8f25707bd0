/*
 * The growing byte buffers the spawner builds its messages in, and the JSON it writes into them
 * (strings and whole numbers: all its messages need). Part of the native spawner (spawner.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spawner.h"

void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) die("out of memory", NULL);
  return q;
}

void buf_add(buf_t *b, const void *src, size_t n) {
  if (b->len + n + 1 > b->cap) {
    b->cap = (b->len + n + 1) * 2;
    b->data = xrealloc(b->data, b->cap);
  }
  memcpy(b->data + b->len, src, n);
  b->len += n;
  b->data[b->len] = 0;
}

void buf_str(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

/* A JSON string: quotes, backslashes and control bytes escaped; UTF-8 passes as it is. */
void buf_json(buf_t *b, const char *s, size_t n) {
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

void buf_int(buf_t *b, long long v) {
  char t[32];
  snprintf(t, sizeof t, "%lld", v);
  buf_str(b, t);
}
