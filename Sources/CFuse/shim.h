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
// FUSE_HANDLE_KILLPRIV_V2 (Linux 5.12+), which libfuse 3.14 cannot ask for. Without it the kernel clears
// SB_NOSEC on a FUSE superblock, so before every write(2) file_remove_privs() asks the daemon for
// `security.capability` (once the daemon serves getxattr at all). With it the kernel sets SB_NOSEC: after one
// check an inode is marked S_NOSEC and its writes skip it until its attributes are next refreshed (in practice
// once per open file), and the daemon is trusted to drop setuid/setgid/capabilities on write, truncate and
// chown, which boxfs files never have (modes are at most 0777, chmod changes nothing).
// These hooks sit between libfuse and /dev/fuse (fuse_session_custom_io): reading notes the kernel's INIT
// request (its id and the flags it offers); writing adds the flag to libfuse's INIT reply when the kernel
// offered it. Every other message passes through untouched.
#include <linux/fuse.h>
#include <sys/uio.h>
#include <unistd.h>
struct boxfs_init_state {
    uint64_t unique;    // the INIT request's id, 0 until read
    uint32_t offered;   // the flags the kernel offered in it
    int answered;       // INIT's reply has gone: nothing more to look at
};
// One per process (one session per daemon); a function's static, as Swift emits no header globals.
static inline struct boxfs_init_state *boxfs_init_state(void) {
    static struct boxfs_init_state state;
    return &state;
}
static inline ssize_t boxfs_fuse_io_read(int fd, void *buf, size_t len, void *userdata) {
    (void)userdata;
    struct boxfs_init_state *state = boxfs_init_state();
    ssize_t n = read(fd, buf, len);
    if (n >= (ssize_t)(sizeof(struct fuse_in_header) + offsetof(struct fuse_init_in, flags) + sizeof(uint32_t))
        && !__atomic_load_n(&state->answered, __ATOMIC_ACQUIRE)) {
        const struct fuse_in_header *header = (const struct fuse_in_header *)buf;
        if (header->opcode == FUSE_INIT) {
            state->offered = ((const struct fuse_init_in *)(header + 1))->flags;
            __atomic_store_n(&state->unique, header->unique, __ATOMIC_RELEASE);
        }
    }
    return n;
}
static inline ssize_t boxfs_fuse_io_writev(int fd, struct iovec *iov, int count, void *userdata) {
    (void)userdata;
    struct boxfs_init_state *state = boxfs_init_state();
    uint64_t unique = __atomic_load_n(&state->unique, __ATOMIC_ACQUIRE);
    if (unique != 0 && !__atomic_load_n(&state->answered, __ATOMIC_ACQUIRE) && count >= 2
        && iov[0].iov_len >= sizeof(struct fuse_out_header)
        && ((const struct fuse_out_header *)iov[0].iov_base)->unique == unique
        && ((const struct fuse_out_header *)iov[0].iov_base)->error == 0
        && iov[1].iov_len >= offsetof(struct fuse_init_out, flags) + sizeof(uint32_t)) {
        if (state->offered & FUSE_HANDLE_KILLPRIV_V2) {
            ((struct fuse_init_out *)iov[1].iov_base)->flags |= FUSE_HANDLE_KILLPRIV_V2;
        }
        __atomic_store_n(&state->answered, 1, __ATOMIC_RELEASE);
    }
    return writev(fd, iov, count);
}
// Installs the hooks on a mounted session (before its loop reads INIT). 0, or a negative errno.
static inline int boxfs_fuse_offer_killpriv_v2(struct fuse_session *se) {
    struct fuse_custom_io io = { .writev = boxfs_fuse_io_writev, .read = boxfs_fuse_io_read };
    return fuse_session_custom_io(se, &io, fuse_session_fd(se));
}
#endif
