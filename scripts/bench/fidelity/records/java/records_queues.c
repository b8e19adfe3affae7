/* The native half of Records.java's queues, one JNI call a message as S3's Java write-up reached
 * its System V queue: msgsnd / msgrcv on a direct ByteBuffer whose first 8 bytes are the type,
 * mq_send / mq_receive on one whose bytes are the message. Shares no code with kits/java/jni.
 * Built by scripts/bench/fidelity/records/records.sh. */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>

JNIEXPORT jint JNICALL Java_Records_sysvCreate(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    return q < 0 ? -errno : q;
}

JNIEXPORT jint JNICALL Java_Records_sysvRemove(JNIEnv *env, jclass cls, jint q) {
    (void)env;
    (void)cls;
    return msgctl(q, IPC_RMID, NULL);
}

JNIEXPORT jint JNICALL Java_Records_sysvSend(JNIEnv *env, jclass cls, jint q, jobject buf,
                                             jint len) {
    (void)cls;
    void *m = (*env)->GetDirectBufferAddress(env, buf);
    int r;
    do r = msgsnd(q, m, (size_t)len, 0);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

JNIEXPORT jint JNICALL Java_Records_sysvReceive(JNIEnv *env, jclass cls, jint q, jobject buf,
                                                jint max) {
    (void)cls;
    void *m = (*env)->GetDirectBufferAddress(env, buf);
    ssize_t n;
    do n = msgrcv(q, m, (size_t)max, 0, 0);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : (jint)n;
}

static jint posix_open(JNIEnv *env, jstring name, int flags, struct mq_attr *attr) {
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    mqd_t q = attr ? mq_open(n, flags, 0600, attr) : mq_open(n, flags);
    int e = errno;
    (*env)->ReleaseStringUTFChars(env, name, n);
    return q < 0 ? -e : (jint)q;
}

JNIEXPORT jint JNICALL Java_Records_posixCreate(JNIEnv *env, jclass cls, jstring name, jint size) {
    (void)cls;
    struct mq_attr attr = {.mq_maxmsg = 10, .mq_msgsize = size}; /* the default depth */
    return posix_open(env, name, O_RDONLY | O_CREAT | O_EXCL, &attr);
}

JNIEXPORT jint JNICALL Java_Records_posixOpen(JNIEnv *env, jclass cls, jstring name) {
    (void)cls;
    return posix_open(env, name, O_WRONLY, NULL);
}

JNIEXPORT jint JNICALL Java_Records_posixUnlink(JNIEnv *env, jclass cls, jstring name) {
    (void)cls;
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    int r = mq_unlink(n);
    (*env)->ReleaseStringUTFChars(env, name, n);
    return r;
}

JNIEXPORT jint JNICALL Java_Records_posixSend(JNIEnv *env, jclass cls, jint q, jobject buf,
                                              jint len) {
    (void)cls;
    char *m = (*env)->GetDirectBufferAddress(env, buf);
    int r;
    do r = mq_send(q, m + 8, (size_t)len, 0);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

JNIEXPORT jint JNICALL Java_Records_posixReceive(JNIEnv *env, jclass cls, jint q, jobject buf,
                                                 jint max) {
    (void)cls;
    char *m = (*env)->GetDirectBufferAddress(env, buf);
    ssize_t n;
    do n = mq_receive(q, m + 8, (size_t)max, NULL);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : (jint)n;
}
