/* The Java kit's JNI library: the calls the JDK does not have (docs/worker-protocol.md,
 * "Transports"): System V and POSIX queues (the way the Java write-up reached its queue),
 * mkfifo, the pipe size (F_SETPIPE_SZ) and pinning every thread of the process to a CPU.
 * Each function returns what the call returned, or -errno; Java turns that into its error.
 * Buffers are direct ByteBuffers: no copy between the JVM and the call. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <mqueue.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NATIVE(name) Java_ipcbench_kit_Native_##name

static jint with_path(JNIEnv *env, jstring path, jint (*call)(const char *, jint), jint arg) {
    const char *p = (*env)->GetStringUTFChars(env, path, NULL);
    if (p == NULL) return -ENOMEM;
    jint r = call(p, arg);
    (*env)->ReleaseStringUTFChars(env, path, p);
    return r;
}

static jint make_fifo(const char *path, jint mode) {
    return mkfifo(path, (mode_t)mode) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL NATIVE(mkfifo0)(JNIEnv *env, jclass cls, jstring path, jint mode) {
    (void)cls;
    return with_path(env, path, make_fifo, mode);
}

/* The pipe behind a FIFO, reached by a second open: O_RDWR never blocks on a FIFO on Linux,
 * and the size belongs to the pipe, not to the descriptor. size 0 reads it. */
static jint pipe_size(const char *path, jint size) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -errno;
    int r = size > 0 ? fcntl(fd, F_SETPIPE_SZ, size) : fcntl(fd, F_GETPIPE_SZ);
    int e = errno;
    close(fd);
    return r < 0 ? -e : r;
}

JNIEXPORT jint JNICALL NATIVE(pipeSize0)(JNIEnv *env, jclass cls, jstring path, jint size) {
    (void)cls;
    return with_path(env, path, pipe_size, size);
}

/* Every thread of the process, the JVM's own included, on one CPU. */
JNIEXPORT jint JNICALL NATIVE(pinProcess0)(JNIEnv *env, jclass cls, jint cpu) {
    (void)env;
    (void)cls;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return -errno;
    int result = 0;
    struct dirent *d;
    while ((d = readdir(tasks)) != NULL) {
        if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
        if (sched_setaffinity((pid_t)atoi(d->d_name), sizeof set, &set) != 0 && errno != ESRCH) {
            result = -errno;
            break;
        }
    }
    closedir(tasks);
    return result;
}

JNIEXPORT jstring JNICALL NATIVE(strerror0)(JNIEnv *env, jclass cls, jint error) {
    (void)cls;
    return (*env)->NewStringUTF(env, strerror(error));
}

/* ---- mq.sysv: the buffer holds mtype (8 bytes) then mtext ---- */

JNIEXPORT jint JNICALL NATIVE(msgget0)(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    int id = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    return id < 0 ? -errno : id;
}

/* queue_bytes: n > 0 sets msg_qbytes; returns msg_qbytes (or -errno). */
JNIEXPORT jlong JNICALL NATIVE(msgQueueBytes0)(JNIEnv *env, jclass cls, jint id, jlong n) {
    (void)env;
    (void)cls;
    struct msqid_ds ds;
    if (msgctl(id, IPC_STAT, &ds) != 0) return -errno;
    if (n > 0) {
        ds.msg_qbytes = (msglen_t)n;
        if (msgctl(id, IPC_SET, &ds) != 0) return -errno;
    }
    return (jlong)ds.msg_qbytes;
}

JNIEXPORT jint JNICALL NATIVE(msgRemove0)(JNIEnv *env, jclass cls, jint id) {
    (void)env;
    (void)cls;
    return msgctl(id, IPC_RMID, NULL) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL NATIVE(msgsnd0)(JNIEnv *env, jclass cls, jint id, jobject buf, jint length) {
    (void)cls;
    void *p = (*env)->GetDirectBufferAddress(env, buf);
    int r;
    do r = msgsnd(id, p, (size_t)length, 0);
    while (r != 0 && errno == EINTR);
    return r == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL NATIVE(msgrcv0)(JNIEnv *env, jclass cls, jint id, jobject buf, jint capacity,
                                       jboolean nowait) {
    (void)cls;
    void *p = (*env)->GetDirectBufferAddress(env, buf);
    ssize_t r;
    do r = msgrcv(id, p, (size_t)capacity, 0, nowait ? IPC_NOWAIT : 0);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : (jint)r;
}

/* ---- mq.posix ---- */

JNIEXPORT jint JNICALL NATIVE(mqOpen0)(JNIEnv *env, jclass cls, jstring name, jboolean writes,
                                       jboolean create, jlong maxmsg, jlong msgsize) {
    (void)cls;
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    if (n == NULL) return -ENOMEM;
    int flags = (writes ? O_WRONLY : O_RDONLY) | O_CLOEXEC;
    mqd_t q;
    if (create) {
        struct mq_attr attr = {0};
        attr.mq_maxmsg = maxmsg;
        attr.mq_msgsize = msgsize;
        q = mq_open(n, flags | O_CREAT | O_EXCL, 0600, &attr);
    } else {
        q = mq_open(n, flags);
    }
    int e = errno;
    (*env)->ReleaseStringUTFChars(env, name, n);
    return q == (mqd_t)-1 ? -e : (jint)q;
}

/* out: maxmsg, msgsize, curmsgs. */
JNIEXPORT jint JNICALL NATIVE(mqAttributes0)(JNIEnv *env, jclass cls, jint q, jlongArray out) {
    (void)cls;
    struct mq_attr attr;
    if (mq_getattr((mqd_t)q, &attr) != 0) return -errno;
    jlong values[3] = {attr.mq_maxmsg, attr.mq_msgsize, attr.mq_curmsgs};
    (*env)->SetLongArrayRegion(env, out, 0, 3, values);
    return 0;
}

JNIEXPORT jint JNICALL NATIVE(mqSend0)(JNIEnv *env, jclass cls, jint q, jobject buf, jint length) {
    (void)cls;
    const char *p = (*env)->GetDirectBufferAddress(env, buf);
    int r;
    do r = mq_send((mqd_t)q, p, (size_t)length, 0);
    while (r != 0 && errno == EINTR);
    return r == 0 ? 0 : -errno;
}

/* timeoutNs < 0: blocks; else mq_timedreceive with a CLOCK_REALTIME deadline (its clock). */
JNIEXPORT jint JNICALL NATIVE(mqReceive0)(JNIEnv *env, jclass cls, jint q, jobject buf,
                                          jint capacity, jlong timeoutNs) {
    (void)cls;
    char *p = (*env)->GetDirectBufferAddress(env, buf);
    struct timespec at;
    if (timeoutNs >= 0) {
        clock_gettime(CLOCK_REALTIME, &at);
        long long ns = (long long)at.tv_nsec + timeoutNs;
        at.tv_sec += (time_t)(ns / 1000000000LL);
        at.tv_nsec = (long)(ns % 1000000000LL);
    }
    ssize_t r;
    do
        r = timeoutNs < 0 ? mq_receive((mqd_t)q, p, (size_t)capacity, NULL)
                          : mq_timedreceive((mqd_t)q, p, (size_t)capacity, NULL, &at);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : (jint)r;
}

JNIEXPORT jint JNICALL NATIVE(mqClose0)(JNIEnv *env, jclass cls, jint q) {
    (void)env;
    (void)cls;
    return mq_close((mqd_t)q) == 0 ? 0 : -errno;
}

JNIEXPORT jint JNICALL NATIVE(mqUnlink0)(JNIEnv *env, jclass cls, jstring name) {
    (void)cls;
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    if (n == NULL) return -ENOMEM;
    int r = mq_unlink(n) == 0 ? 0 : -errno;
    (*env)->ReleaseStringUTFChars(env, name, n);
    return r;
}
