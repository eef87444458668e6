// Typed wrappers for libcurl's variadic calls, which Swift cannot import.
// Every symbol is prefixed boxfs_curl_ and exists only because the original is variadic.
#ifndef BOXFS_CCURL_SHIM_H
#define BOXFS_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt with a long argument (flags, sizes, timeouts).
static inline CURLcode boxfs_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a curl_off_t argument (large sizes and offsets).
static inline CURLcode boxfs_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a string argument; curl copies the string.
static inline CURLcode boxfs_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with an opaque pointer (callback user data).
static inline CURLcode boxfs_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a header list.
static inline CURLcode boxfs_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a write/header callback (size_t (*)(char*, size_t, size_t, void*)).
static inline CURLcode boxfs_curl_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a read callback.
static inline CURLcode boxfs_curl_easy_setopt_read_function(CURL *h, CURLoption o, curl_read_callback v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a seek callback: lets curl rewind an upload body (retry on a dead reused connection, redirects).
static inline CURLcode boxfs_curl_easy_setopt_seek_function(CURL *h, CURLoption o, curl_seek_callback v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with a transfer-info (progress) callback.
static inline CURLcode boxfs_curl_easy_setopt_xferinfo_function(CURL *h, CURLoption o, curl_xferinfo_callback v) { return curl_easy_setopt(h, o, v); }
// curl_easy_setopt with the callback curl calls before it sends each request of a transfer (CURLOPT_PREREQFUNCTION).
static inline CURLcode boxfs_curl_easy_setopt_prereq_function(CURL *h, CURLoption o, curl_prereq_callback v) { return curl_easy_setopt(h, o, v); }
// curl_easy_getinfo for long results (response code).
static inline CURLcode boxfs_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
// curl_easy_getinfo for curl_off_t results (sizes, times in microseconds).
static inline CURLcode boxfs_curl_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
// curl_easy_getinfo for string results (effective URL, redirect URL); the string belongs to the handle.
static inline CURLcode boxfs_curl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
// curl_easy_getinfo for the private pointer set with CURLOPT_PRIVATE.
static inline CURLcode boxfs_curl_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
// curl_multi_setopt with a long argument.
static inline CURLMcode boxfs_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
#endif
