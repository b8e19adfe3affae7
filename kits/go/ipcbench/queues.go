package ipcbench

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// mq.sysv and mq.posix through the system calls themselves (the syscall package has no
// wrappers for them): msgget/msgsnd/msgrcv/msgctl and mq_open/mq_timedsend/
// mq_timedreceive/mq_unlink.

const (
	ipcPrivate = 0
	ipcCreat   = 01000
	ipcNoWait  = 04000
	ipcRmid    = 0
	ipcStat    = 2
	msgNoError = 010000
)

type sysvEndpoint struct {
	role, direction string
	qid             int
	max             int
	scratch         []byte // mtype (8 bytes) + max
}

func openSysv(p OpenParams) (Endpoint, error) {
	if err := CheckOptions("mq.sysv", p.Options, []string{"queue_bytes"}, nil); err != nil {
		return nil, err
	}
	if p.Direction == Both {
		return nil, Fail(StatusUnsupported, "a queue carries data one way, not both")
	}
	if limit, err := strconv.Atoi(readProc("/proc/sys/kernel/msgmax")); err == nil && p.MaxMessage > limit {
		return nil, Fail(StatusTooBig, "mq.sysv: a message of %d B exceeds kernel.msgmax=%d; raise it with sysctl -w kernel.msgmax=%d", p.MaxMessage, limit, p.MaxMessage)
	}
	e := &sysvEndpoint{role: p.Role, direction: p.Direction, max: p.MaxMessage}
	if e.max < 8 {
		e.max = 8
	}
	e.scratch = make([]byte, 8+e.max)
	binary.LittleEndian.PutUint64(e.scratch, 1) // mtype 1
	if p.Role == Creator {
		r, _, errno := syscall.Syscall(syscall.SYS_MSGGET, ipcPrivate, ipcCreat|0600, 0)
		if errno != 0 {
			return nil, Fail(StatusSystem, "msgget: %v", errno)
		}
		e.qid = int(r)
		if v := p.Options["queue_bytes"]; v != "" {
			n, err := ParseBytes("queue_bytes", v, 1<<31-1)
			if err != nil {
				e.Close()
				return nil, err
			}
			if err := e.setQueueBytes(int(n)); err != nil {
				e.Close()
				return nil, err
			}
		}
		return e, nil
	}
	id, err := strconv.Atoi(strings.TrimPrefix(p.Address, "sysv:"))
	if !strings.HasPrefix(p.Address, "sysv:") || err != nil || id < 0 {
		return nil, Fail(StatusBadAddress, "mq.sysv address '%s' is not sysv:ID", p.Address)
	}
	e.qid = id
	return e, nil
}

// struct msqid_ds on linux/amd64: 120 bytes, msg_qbytes at offset 88 (after ipc_perm (48),
// three times (24), __msg_cbytes (8), msg_qnum (8)).
const msqidSize, qbytesOffset = 120, 88

func (e *sysvEndpoint) setQueueBytes(n int) error {
	var ds [msqidSize]byte
	if _, _, errno := syscall.Syscall(syscall.SYS_MSGCTL, uintptr(e.qid), ipcStat, uintptr(unsafe.Pointer(&ds[0]))); errno != 0 {
		return Fail(StatusSystem, "msgctl(IPC_STAT): %v", errno)
	}
	binary.LittleEndian.PutUint64(ds[qbytesOffset:], uint64(n))
	if _, _, errno := syscall.Syscall(syscall.SYS_MSGCTL, uintptr(e.qid), 1 /* IPC_SET */, uintptr(unsafe.Pointer(&ds[0]))); errno != 0 {
		return Fail(StatusBadOption, "option queue_bytes=%d: msgctl(IPC_SET): %v (above kernel.msgmnb needs root)", n, errno)
	}
	return nil
}

func (e *sysvEndpoint) Export() string { return fmt.Sprintf("sysv:%d", e.qid) }
func (e *sysvEndpoint) Stream() bool   { return false }
func (e *sysvEndpoint) Reliable() bool { return true }
func (e *sysvEndpoint) Calls() (string, string) {
	return "msgsnd", "msgrcv"
}

func (e *sysvEndpoint) Connect(time.Duration) error {
	var ds [msqidSize]byte
	if _, _, errno := syscall.Syscall(syscall.SYS_MSGCTL, uintptr(e.qid), ipcStat, uintptr(unsafe.Pointer(&ds[0]))); errno != 0 {
		return Fail(StatusClosed, "mq.sysv: queue %d is gone", e.qid)
	}
	return nil
}

func sysvGone(errno syscall.Errno) error {
	if errno == syscall.EIDRM || errno == syscall.EINVAL {
		return Fail(StatusClosed, "mq.sysv: the queue was removed by its creator")
	}
	return Fail(StatusSystem, "mq.sysv: %v", errno)
}

func (e *sysvEndpoint) Send(m []byte) error {
	copy(e.scratch[8:], m)
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_MSGSND, uintptr(e.qid), uintptr(unsafe.Pointer(&e.scratch[0])), uintptr(len(m)), 0, 0, 0)
		if errno == 0 {
			return nil
		}
		if errno != syscall.EINTR {
			return sysvGone(errno)
		}
	}
}

func (e *sysvEndpoint) Recv(buf []byte, timeout time.Duration) (int, error) {
	deadline := deadlineOf(timeout)
	flags := uintptr(0)
	if timeout >= 0 {
		flags = ipcNoWait
	}
	for {
		r, _, errno := syscall.Syscall6(syscall.SYS_MSGRCV, uintptr(e.qid), uintptr(unsafe.Pointer(&e.scratch[0])), uintptr(e.max), 0, flags, 0)
		if errno == 0 {
			return copy(buf, e.scratch[8:8+int(r)]), nil
		}
		if errno == syscall.E2BIG {
			return 0, Fail(StatusTruncated, "mq.sysv: a message larger than %d B", e.max)
		}
		if errno == syscall.ENOMSG {
			if pastDeadline(deadline) {
				return 0, Fail(StatusTimeout, "mq.sysv: nothing to receive")
			}
			time.Sleep(50 * time.Microsecond)
			continue
		}
		if errno != syscall.EINTR {
			return 0, sysvGone(errno)
		}
	}
}

func readProc(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (e *sysvEndpoint) Settings() map[string]string {
	out := map[string]string{"kernel.msgmax": readProc("/proc/sys/kernel/msgmax"),
		"kernel.msgmnb": readProc("/proc/sys/kernel/msgmnb")}
	var ds [msqidSize]byte
	if _, _, errno := syscall.Syscall(syscall.SYS_MSGCTL, uintptr(e.qid), ipcStat, uintptr(unsafe.Pointer(&ds[0]))); errno == 0 {
		out["queue_bytes"] = strconv.FormatUint(binary.LittleEndian.Uint64(ds[qbytesOffset:]), 10)
	}
	return out
}

func (e *sysvEndpoint) Close() {
	if e.role == Creator && e.qid >= 0 {
		syscall.Syscall(syscall.SYS_MSGCTL, uintptr(e.qid), ipcRmid, 0)
		e.qid = -1
	}
}

// ---- mq.posix ----

type posixQueueEndpoint struct {
	role, name string
	fd         int
	msgsize    int
	scratch    []byte
}

// struct mq_attr: four longs: flags, maxmsg, msgsize, curmsgs.
type mqAttr struct{ flags, maxmsg, msgsize, curmsgs, pad0, pad1, pad2, pad3 int64 }

func openPosixQueue(p OpenParams) (Endpoint, error) {
	if err := CheckOptions("mq.posix", p.Options, []string{"maxmsg"}, nil); err != nil {
		return nil, err
	}
	if p.Direction == Both {
		return nil, Fail(StatusUnsupported, "a queue carries data one way, not both")
	}
	access := syscall.O_RDONLY
	if p.Direction == Send {
		access = syscall.O_WRONLY
	}
	e := &posixQueueEndpoint{role: p.Role, fd: -1}
	var err error
	if p.Role == Creator {
		maxmsg := 10
		if v := p.Options["maxmsg"]; v != "" {
			if maxmsg, err = strconv.Atoi(v); err != nil || maxmsg < 1 {
				return nil, Fail(StatusBadOption, "option maxmsg=%s: expected a whole number >= 1", v)
			}
		}
		var random [4]byte
		rand.Read(random[:])
		e.name = fmt.Sprintf("/ipcbench-%d-go-%x", os.Getpid(), random)
		attr := mqAttr{maxmsg: int64(maxmsg), msgsize: int64(p.MaxMessage)}
		if attr.msgsize == 0 {
			attr.msgsize = 8192
		}
		e.fd, err = mqOpen(e.name, access|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, &attr)
		if err == syscall.EINVAL || err == syscall.EMFILE || err == syscall.ENOMEM {
			return nil, Fail(StatusTooBig, "mq.posix: a queue of %d messages of %d B exceeds fs.mqueue.msgsize_max=%s or fs.mqueue.msg_max=%s; raise them with sysctl -w fs.mqueue.msgsize_max=%d (root may exceed them)", maxmsg, attr.msgsize, readProc("/proc/sys/fs/mqueue/msgsize_max"), readProc("/proc/sys/fs/mqueue/msg_max"), attr.msgsize)
		}
		if err != nil {
			return nil, Fail(StatusSystem, "mq_open %s (maxmsg %d, msgsize %d): %v", e.name, maxmsg, attr.msgsize, err)
		}
	} else {
		if !strings.HasPrefix(p.Address, "/") || len(p.Address) > 255 {
			return nil, Fail(StatusBadAddress, "mq.posix address '%s' is not a queue name (/name)", p.Address)
		}
		e.name = p.Address
		if e.fd, err = mqOpen(e.name, access|syscall.O_CLOEXEC, nil); err != nil {
			return nil, Fail(StatusBadAddress, "mq.posix: cannot open queue '%s': %v", e.name, err)
		}
	}
	var attr mqAttr
	syscall.Syscall(syscall.SYS_MQ_GETSETATTR, uintptr(e.fd), 0, uintptr(unsafe.Pointer(&attr)))
	e.msgsize = int(attr.msgsize)
	if p.MaxMessage > e.msgsize {
		e.Close()
		return nil, Fail(StatusTooBig, "mq.posix: the queue takes messages up to %d B, not %d", e.msgsize, p.MaxMessage)
	}
	e.scratch = make([]byte, e.msgsize)
	return e, nil
}

// mqOpen: the kernel takes the name without its leading '/', as glibc's mq_open passes it.
func mqOpen(name string, flags int, attr *mqAttr) (int, error) {
	b, err := syscall.BytePtrFromString(strings.TrimPrefix(name, "/"))
	if err != nil {
		return -1, err
	}
	r, _, errno := syscall.Syscall6(syscall.SYS_MQ_OPEN, uintptr(unsafe.Pointer(b)), uintptr(flags), 0600, uintptr(unsafe.Pointer(attr)), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

func (e *posixQueueEndpoint) Export() string { return e.name }
func (e *posixQueueEndpoint) Stream() bool   { return false }
func (e *posixQueueEndpoint) Reliable() bool { return true }
func (e *posixQueueEndpoint) Calls() (string, string) {
	return "mq_timedsend", "mq_timedreceive"
}
func (e *posixQueueEndpoint) Connect(time.Duration) error { return nil }

func (e *posixQueueEndpoint) Send(m []byte) error {
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_MQ_TIMEDSEND, uintptr(e.fd), uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), 0, 0, 0)
		if errno == 0 {
			return nil
		}
		if errno != syscall.EINTR {
			return Fail(StatusSystem, "mq_timedsend: %v", errno)
		}
	}
}

func (e *posixQueueEndpoint) Recv(buf []byte, timeout time.Duration) (int, error) {
	var ts *syscall.Timespec
	if timeout >= 0 {
		var now syscall.Timespec
		syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 0 /* CLOCK_REALTIME */, uintptr(unsafe.Pointer(&now)), 0)
		t := syscall.NsecToTimespec(syscall.TimespecToNsec(now) + timeout.Nanoseconds())
		ts = &t
	}
	for {
		r, _, errno := syscall.Syscall6(syscall.SYS_MQ_TIMEDRECEIVE, uintptr(e.fd), uintptr(unsafe.Pointer(&e.scratch[0])), uintptr(len(e.scratch)), 0, uintptr(unsafe.Pointer(ts)), 0)
		if errno == 0 {
			return copy(buf, e.scratch[:int(r)]), nil
		}
		if errno == syscall.ETIMEDOUT {
			return 0, Fail(StatusTimeout, "mq.posix: nothing to receive")
		}
		if errno != syscall.EINTR {
			return 0, Fail(StatusSystem, "mq_timedreceive: %v", errno)
		}
	}
}

func (e *posixQueueEndpoint) Settings() map[string]string {
	var attr mqAttr
	syscall.Syscall(syscall.SYS_MQ_GETSETATTR, uintptr(e.fd), 0, uintptr(unsafe.Pointer(&attr)))
	return map[string]string{"maxmsg": strconv.FormatInt(attr.maxmsg, 10),
		"msgsize":               strconv.FormatInt(attr.msgsize, 10),
		"fs.mqueue.msg_max":     readProc("/proc/sys/fs/mqueue/msg_max"),
		"fs.mqueue.msgsize_max": readProc("/proc/sys/fs/mqueue/msgsize_max")}
}

func (e *posixQueueEndpoint) Close() {
	if e.fd >= 0 {
		syscall.Close(e.fd)
		e.fd = -1
	}
	if e.role == Creator && e.name != "" {
		if b, err := syscall.BytePtrFromString(strings.TrimPrefix(e.name, "/")); err == nil {
			syscall.Syscall(syscall.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(b)), 0, 0)
		}
		e.name = ""
	}
}
