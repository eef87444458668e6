// libfuse3 low-level API for Swift. FUSE_USE_VERSION must be set before the header;
// 312 matches Debian 12's libfuse 3.14. Prefixed shims exist only where Swift cannot
// call the original (function-like macros, variadic or bit-field structs).
#ifndef BOXFS_CFUSE_SHIM_H
#define BOXFS_CFUSE_SHIM_H
#define FUSE_USE_VERSION 312
#include <stddef.h>
#include <fuse_lowlevel.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>

// fuse_session_new is a macro in some libfuse versions; this always calls the function.
static inline struct fuse_session *boxfs_fuse_session_new(struct fuse_args *args,
        const struct fuse_lowlevel_ops *op, size_t op_size, void *userdata) {
    return fuse_session_new(args, op, op_size, userdata);
}
// fuse_file_info's flags are C bit-fields, which Swift imports awkwardly; these set them.
static inline void boxfs_fuse_fi_set_keep_cache(struct fuse_file_info *fi, int v) { fi->keep_cache = v ? 1 : 0; }
static inline void boxfs_fuse_fi_set_direct_io(struct fuse_file_info *fi, int v) { fi->direct_io = v ? 1 : 0; }
static inline void boxfs_fuse_fi_set_nonseekable(struct fuse_file_info *fi, int v) { fi->nonseekable = v ? 1 : 0; }
static inline int boxfs_fuse_fi_flags(const struct fuse_file_info *fi) { return fi->flags; }
static inline uint64_t boxfs_fuse_fi_fh(const struct fuse_file_info *fi) { return fi->fh; }
static inline void boxfs_fuse_fi_set_fh(struct fuse_file_info *fi, uint64_t fh) { fi->fh = fh; }
// FUSE_ARGS_INIT is a macro; this builds an empty argument list.
static inline struct fuse_args boxfs_fuse_args_empty(void) { struct fuse_args a = FUSE_ARGS_INIT(0, NULL); return a; }
// Capability bits are macros; these return them as values.
static inline unsigned boxfs_fuse_cap_async_read(void) { return FUSE_CAP_ASYNC_READ; }
static inline unsigned boxfs_fuse_cap_readdirplus(void) { return FUSE_CAP_READDIRPLUS; }
static inline unsigned boxfs_fuse_cap_readdirplus_auto(void) { return FUSE_CAP_READDIRPLUS_AUTO; }
static inline unsigned boxfs_fuse_cap_writeback_cache(void) { return FUSE_CAP_WRITEBACK_CACHE; }
static inline unsigned boxfs_fuse_cap_auto_inval_data(void) { return FUSE_CAP_AUTO_INVAL_DATA; }
static inline unsigned boxfs_fuse_cap_parallel_dirops(void) { return FUSE_CAP_PARALLEL_DIROPS; }
static inline unsigned boxfs_fuse_cap_export_support(void) { return FUSE_CAP_EXPORT_SUPPORT; }
// setattr's to_set bits are macros; these return them as values.
static inline int boxfs_fuse_set_attr_mode(void) { return FUSE_SET_ATTR_MODE; }
static inline int boxfs_fuse_set_attr_uid(void) { return FUSE_SET_ATTR_UID; }
static inline int boxfs_fuse_set_attr_gid(void) { return FUSE_SET_ATTR_GID; }
static inline int boxfs_fuse_set_attr_size(void) { return FUSE_SET_ATTR_SIZE; }
static inline int boxfs_fuse_set_attr_mtime(void) { return FUSE_SET_ATTR_MTIME; }
static inline int boxfs_fuse_set_attr_mtime_now(void) { return FUSE_SET_ATTR_MTIME_NOW; }
static inline int boxfs_fuse_set_attr_atime(void) { return FUSE_SET_ATTR_ATIME; }
static inline int boxfs_fuse_set_attr_atime_now(void) { return FUSE_SET_ATTR_ATIME_NOW; }
#endif
