/*
 * lstatMtimes(paths): a Float64Array of each path's own modification time in ms, as Node's
 * `lstatSync(path).mtimeMs` computes it (seconds * 1e3 + nanoseconds / 1e6), -1 where lstat(2)
 * failed, NaN where this cannot say (not a string, a name too long for the buffer): the caller
 * asks Node then. One lstat(2) per path and no Stats object or Date for any
 * (docs/adr/0585-newest-first-stamps-without-stats-objects.md). Loaded by
 * src/tools/shared/lstat-mtimes.ts; built by scripts/build-spawner.ts.
 */
#define _POSIX_C_SOURCE 200809L
#define NAPI_VERSION 8
#include <math.h>
#include <node_api.h>
#include <string.h>
#include <sys/stat.h>

/* PATH_MAX's 4096 bytes and the NUL: a longer name is left to Node, which fails it alike. */
#define NAME_ROOM 4097

static double own_mtime_ms(napi_env env, napi_value item) {
  char name[NAME_ROOM];
  size_t length = 0;
  if (napi_get_value_string_utf8(env, item, name, sizeof name, &length) != napi_ok) return NAN;
  if (length >= sizeof name - 1) return NAN;
  /* A NUL inside the string would name a shorter path: Node refuses such a name, so does this. */
  if (strlen(name) != length) return NAN;
  struct stat status;
  if (lstat(name, &status) != 0) return -1;
  return (double)status.st_mtim.tv_sec * 1e3 + (double)status.st_mtim.tv_nsec / 1e6;
}

static napi_value lstat_mtimes(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uint32_t count = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_array_length(env, argv[0], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "lstatMtimes takes an array of paths");
    return NULL;
  }
  void *data = NULL;
  napi_value buffer, result;
  if (napi_create_arraybuffer(env, (size_t)count * sizeof(double), &data, &buffer) != napi_ok) return NULL;
  double *times = data;
  for (uint32_t index = 0; index < count; index++) {
    napi_value item;
    times[index] = napi_get_element(env, argv[0], index, &item) == napi_ok ? own_mtime_ms(env, item) : NAN;
  }
  if (napi_create_typedarray(env, napi_float64_array, count, buffer, 0, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "lstatMtimes", NAPI_AUTO_LENGTH, lstat_mtimes, NULL, &function) != napi_ok ||
      napi_set_named_property(env, exports, "lstatMtimes", function) != napi_ok)
    return NULL;
  return exports;
}
