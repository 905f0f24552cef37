#ifndef NEWSSTAND_CCURL_SHIM_H
#define NEWSSTAND_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

/* libcurl is opened with dlopen the first time a transfer needs it, not linked: loading it and
   the forty libraries it needs (TLS, HTTP/2, IDN, LDAP, Kerberos, ...) took 8 of the 12 ms an
   offline command spent in the dynamic loader, and an offline `list` never fetches.

   Every entry point is looked up once into a ccurl_library; the wrappers below call through it,
   and the variadic setters and getters, which Swift cannot call, get one typed wrapper per
   argument type.

   Opened with RTLD_LAZY: binding every function of libcurl and its libraries as they load took
   0.4 ms more alone and 2 ms more beside a busy thread (a C program, 15 runs each), and the load
   is what a command's first request waits for. Libraries linked with -z now (most of these in
   Debian) are bound at once all the same. */

typedef struct ccurl_library {
    void *handle;
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_setopt)(CURLM *multi, CURLMoption option, ...);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *remaining);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd extra[], unsigned int count, int timeout, int *ready);
    CURLMcode (*multi_wakeup)(CURLM *multi);
} ccurl_library;

/* Opens `name` and looks up every entry point; returns the name of the first one missing, "" when
   the library itself could not be opened (dlerror says why), or NULL when all were found. On
   failure the library is closed again. */
static inline const char *ccurl_library_open(ccurl_library *library, const char *name) {
    library->handle = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (library->handle == NULL) return "";
#define CCURL_FIND(field, symbol) \
    if ((*(void **)&library->field = dlsym(library->handle, symbol)) == NULL) { dlclose(library->handle); library->handle = NULL; return symbol; }
    CCURL_FIND(global_init, "curl_global_init")
    CCURL_FIND(easy_init, "curl_easy_init")
    CCURL_FIND(easy_cleanup, "curl_easy_cleanup")
    CCURL_FIND(easy_setopt, "curl_easy_setopt")
    CCURL_FIND(easy_getinfo, "curl_easy_getinfo")
    CCURL_FIND(easy_strerror, "curl_easy_strerror")
    CCURL_FIND(slist_append, "curl_slist_append")
    CCURL_FIND(slist_free_all, "curl_slist_free_all")
    CCURL_FIND(multi_init, "curl_multi_init")
    CCURL_FIND(multi_cleanup, "curl_multi_cleanup")
    CCURL_FIND(multi_setopt, "curl_multi_setopt")
    CCURL_FIND(multi_add_handle, "curl_multi_add_handle")
    CCURL_FIND(multi_remove_handle, "curl_multi_remove_handle")
    CCURL_FIND(multi_perform, "curl_multi_perform")
    CCURL_FIND(multi_info_read, "curl_multi_info_read")
    CCURL_FIND(multi_poll, "curl_multi_poll")
    CCURL_FIND(multi_wakeup, "curl_multi_wakeup")
#undef CCURL_FIND
    return NULL;
}

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *userdata);

static inline CURLcode ccurl_global_init(const ccurl_library *curl, long flags) { return curl->global_init(flags); }
static inline CURL *ccurl_easy_init(const ccurl_library *curl) { return curl->easy_init(); }
static inline void ccurl_easy_cleanup(const ccurl_library *curl, CURL *handle) { curl->easy_cleanup(handle); }
static inline const char *ccurl_easy_strerror(const ccurl_library *curl, CURLcode code) { return curl->easy_strerror(code); }
static inline struct curl_slist *ccurl_slist_append(const ccurl_library *curl, struct curl_slist *list, const char *line) {
    return curl->slist_append(list, line);
}
static inline void ccurl_slist_free_all(const ccurl_library *curl, struct curl_slist *list) { curl->slist_free_all(list); }

static inline CURLcode ccurl_easy_setopt_long(const ccurl_library *curl, CURL *handle, CURLoption option, long value) {
    return curl->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_offset(const ccurl_library *curl, CURL *handle, CURLoption option, curl_off_t value) {
    return curl->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(const ccurl_library *curl, CURL *handle, CURLoption option, const char *value) {
    return curl->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(const ccurl_library *curl, CURL *handle, CURLoption option, void *value) {
    return curl->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(const ccurl_library *curl, CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_data_callback(const ccurl_library *curl, CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl->easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_getinfo_long(const ccurl_library *curl, CURL *handle, CURLINFO info, long *value) {
    return curl->easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(const ccurl_library *curl, CURLM *multi, CURLMoption option, long value) {
    return curl->multi_setopt(multi, option, value);
}

static inline CURLM *ccurl_multi_init(const ccurl_library *curl) { return curl->multi_init(); }
static inline CURLMcode ccurl_multi_cleanup(const ccurl_library *curl, CURLM *multi) { return curl->multi_cleanup(multi); }
static inline CURLMcode ccurl_multi_add_handle(const ccurl_library *curl, CURLM *multi, CURL *handle) {
    return curl->multi_add_handle(multi, handle);
}
static inline CURLMcode ccurl_multi_remove_handle(const ccurl_library *curl, CURLM *multi, CURL *handle) {
    return curl->multi_remove_handle(multi, handle);
}
static inline CURLMcode ccurl_multi_perform(const ccurl_library *curl, CURLM *multi, int *running) {
    return curl->multi_perform(multi, running);
}
static inline CURLMsg *ccurl_multi_info_read(const ccurl_library *curl, CURLM *multi, int *remaining) {
    return curl->multi_info_read(multi, remaining);
}
static inline CURLMcode ccurl_multi_poll(const ccurl_library *curl, CURLM *multi, int timeout) {
    return curl->multi_poll(multi, NULL, 0, timeout, NULL);
}
static inline CURLMcode ccurl_multi_wakeup(const ccurl_library *curl, CURLM *multi) { return curl->multi_wakeup(multi); }

/* CURLAUTH_BEARER is a macro with a cast. */
static inline unsigned long ccurl_auth_bearer(void) { return CURLAUTH_BEARER; }

/* CURLMsg.data is a union. */
static inline CURLcode ccurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
