/* S3's shape: the native half of SysvLoop.java, one JNI call a message, as the Java write-up
 * reached its System V queue (msgsnd / msgrcv on a direct ByteBuffer whose first 8 bytes are
 * the message type). Shares no code with kits/java/jni. Built by scripts/bench/fidelity/sysv.sh. */
#include <errno.h>
#include <jni.h>
#include <sys/ipc.h>
#include <sys/msg.h>

JNIEXPORT jint JNICALL Java_SysvLoop_create(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return msgget(IPC_PRIVATE, IPC_CREAT | 0600);
}

JNIEXPORT jint JNICALL Java_SysvLoop_remove(JNIEnv *env, jclass cls, jint q) {
    (void)env;
    (void)cls;
    return msgctl(q, IPC_RMID, NULL);
}

JNIEXPORT jint JNICALL Java_SysvLoop_send(JNIEnv *env, jclass cls, jint q, jobject buf, jint len) {
    (void)cls;
    void *m = (*env)->GetDirectBufferAddress(env, buf);
    int r;
    do r = msgsnd(q, m, (size_t)len, 0);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

JNIEXPORT jint JNICALL Java_SysvLoop_receive(JNIEnv *env, jclass cls, jint q, jobject buf,
                                             jint max) {
    (void)cls;
    void *m = (*env)->GetDirectBufferAddress(env, buf);
    ssize_t n;
    do n = msgrcv(q, m, (size_t)max, 0, 0);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -errno : (jint)n;
}
