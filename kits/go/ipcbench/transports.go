package ipcbench

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Directions and roles as the setup message names them.
const (
	Send, Recv, Both   = "send", "recv", "both"
	Creator, Connector = "creator", "connector"
	maxUDPDatagramIPv4 = 65507
	udpHello, udpAck   = "ipcb-udp-helo", "ipcb-udp-ack!"
	pipeHello          = 'H'
	socketConnectRetry = time.Millisecond
	fifoOpenRetry      = 200 * time.Microsecond
	udpHelloPeriod     = 50 * time.Millisecond
)

// Endpoint is one end of one stream of a case: what the timed loops call. An adapter that
// times your own code implements it (README.md).
type Endpoint interface {
	// Export is a creator's address for the connector.
	Export() string
	// Connect attaches to the peer within timeout (both roles at once).
	Connect(timeout time.Duration) error
	// Send writes all of m: one message, or several back to back on a byte stream.
	Send(m []byte) error
	// Recv reads into buf: on a byte stream some bytes (io.EOF when the peer closed), else one
	// message. timeout < 0 blocks; otherwise an error with StatusOf(err) == StatusTimeout.
	Recv(buf []byte, timeout time.Duration) (int, error)
	Settings() map[string]string
	Close()
	Stream() bool
	Reliable() bool
	// Calls names the calls behind Send and Recv, for the result's path.
	Calls() (send, recv string)
}

// OpenParams is what setup says of one endpoint.
type OpenParams struct {
	Transport, Role, Direction, Address string
	Options                             map[string]string
	RuntimeDir                          string
	MaxMessage                          int
	// BindingKey (protocol 1.1): what a connector of socket.tcp or udp.inet presents first, so
	// an agent's creator knows it from a third party (docs/worker-protocol.md, "Binding").
	BindingKey []byte
}

// What a bound connector presents: a TCP stream's first bytes, a UDP hello's prefix.
const (
	bindingMagic  = "ipcbench-bind/1\n"
	udpBoundHello = "ipcb-udp-bind"
)

// Factory opens an endpoint (a creator creates what it exports here).
type Factory func(p OpenParams) (Endpoint, error)

var factories = map[string]Factory{}
var builtins = map[string]Factory{}

// Register makes a transport available under an id (plugin.variant); an adapter registered
// under a built-in's id replaces it, and may wrap it through OpenBuiltin.
func Register(id string, f Factory) { factories[id] = f }

// OpenBuiltin opens the kit's own endpoint of p.Transport, whatever is registered over it.
func OpenBuiltin(p OpenParams) (Endpoint, error) {
	f, ok := builtins[p.Transport]
	if !ok {
		return nil, Fail(StatusUnsupported, "the kit has no built-in %s", p.Transport)
	}
	return f(p)
}

// Open opens an endpoint of a registered transport.
func Open(p OpenParams) (Endpoint, error) {
	f, ok := factories[p.Transport]
	if !ok {
		ids := make([]string, 0, len(factories))
		for id := range factories {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		return nil, Fail(StatusUnsupported, "this kit does not implement %s; it has %s", p.Transport, strings.Join(ids, ", "))
	}
	return f(p)
}

func init() {
	builtins["pipe.fifo"] = openFifo
	builtins["socket.unix"] = func(p OpenParams) (Endpoint, error) { return openSocket(p, false) }
	builtins["socket.tcp"] = func(p OpenParams) (Endpoint, error) { return openSocket(p, true) }
	builtins["udp.inet"] = openUDP
	builtins["mq.sysv"] = openSysv
	builtins["mq.posix"] = openPosixQueue
	for id, f := range builtins {
		factories[id] = f
	}
}

// ParseBytes reads a byte count with suffixes K, M, G, as the plugins do.
func ParseBytes(key, value string, limit uint64) (uint64, error) {
	text := strings.ToUpper(strings.TrimSpace(value))
	scale := uint64(1)
	if n := len(text); n > 0 {
		switch text[n-1] {
		case 'K':
			scale, text = 1<<10, text[:n-1]
		case 'M':
			scale, text = 1<<20, text[:n-1]
		case 'G':
			scale, text = 1<<30, text[:n-1]
		}
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil || v == 0 || v*scale > limit {
		return 0, Fail(StatusBadOption, "option %s=%s: expected a byte count from 1 to %d, for example 1M", key, value, limit)
	}
	return v * scale, nil
}

// CheckOptions refuses options outside known, and fixed ones at another value than theirs.
func CheckOptions(id string, options map[string]string, known []string, fixed map[string]string) error {
	all := append([]string(nil), known...)
	for k := range fixed {
		all = append(all, k)
	}
	sort.Strings(all)
	for key, value := range options {
		if want, ok := fixed[key]; ok {
			if value != "" && value != want {
				return Fail(StatusUnsupported, "this kit runs %s with %s=%s only, not %s", id, key, want, value)
			}
			continue
		}
		found := false
		for _, k := range known {
			found = found || k == key
		}
		if !found {
			return Fail(StatusUnknownOption, "unknown option '%s' for %s; known: %s", key, id, strings.Join(all, ", "))
		}
	}
	return nil
}

// privateFolder is a folder of our own (0700) in the run directory.
func privateFolder(runtimeDir string) (string, error) {
	if runtimeDir == "" {
		return "", Fail(StatusBadAddress, "the setup gave no runtime_dir to create names in")
	}
	return os.MkdirTemp(runtimeDir, "go-")
}

func deadlineOf(timeout time.Duration) time.Time {
	if timeout < 0 {
		return time.Time{}
	}
	return time.Now().Add(timeout)
}

func pastDeadline(d time.Time) bool { return !d.IsZero() && time.Now().After(d) }

// ---- pipe.fifo ----

type fifoEndpoint struct {
	role, direction, path, folder string
	pipeSize                      int
	file                          *os.File
}

func openFifo(p OpenParams) (Endpoint, error) {
	if err := CheckOptions("pipe.fifo", p.Options, []string{"pipe_size"}, map[string]string{"splice": "none"}); err != nil {
		return nil, err
	}
	if p.Direction == Both {
		return nil, Fail(StatusUnsupported, "a pipe carries data one way, not both")
	}
	e := &fifoEndpoint{role: p.Role, direction: p.Direction}
	if v := p.Options["pipe_size"]; v != "" {
		n, err := ParseBytes("pipe_size", v, 1<<30)
		if err != nil {
			return nil, err
		}
		e.pipeSize = int(n)
	}
	if p.Role == Creator {
		dir, err := privateFolder(p.RuntimeDir)
		if err != nil {
			return nil, err
		}
		e.folder, e.path = dir, filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(e.path, 0600); err != nil {
			os.Remove(dir)
			return nil, Fail(StatusSystem, "mkfifo in %s: %v", dir, err)
		}
		return e, nil
	}
	var st syscall.Stat_t
	if !strings.HasPrefix(p.Address, "/") || syscall.Stat(p.Address, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil, Fail(StatusBadAddress, "pipe.fifo address '%s' is not an existing FIFO", p.Address)
	}
	e.path = p.Address
	return e, nil
}

func (e *fifoEndpoint) Export() string { return e.path }
func (e *fifoEndpoint) Stream() bool   { return true }
func (e *fifoEndpoint) Reliable() bool { return true }
func (e *fifoEndpoint) Calls() (string, string) {
	return "(*os.File).Write", "(*os.File).Read"
}

// Connect opens the FIFO nonblocking (the reader waits for the writer's 'H'), and hands the
// descriptor to os.NewFile, which then reads and writes through the runtime's poller, as
// os.OpenFile does for a FIFO in any Go program.
func (e *fifoEndpoint) Connect(timeout time.Duration) error {
	deadline := deadlineOf(timeout)
	var fd int
	var err error
	if e.direction == Recv {
		if fd, err = syscall.Open(e.path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0); err != nil {
			return Fail(StatusSystem, "open FIFO %s for reading: %v", e.path, err)
		}
		e.applySize(fd)
		pause := 20 * time.Microsecond
		for {
			b := []byte{0}
			n, rerr := syscall.Read(fd, b)
			if n == 1 {
				if b[0] != pipeHello {
					syscall.Close(fd)
					return Fail(StatusSystem, "pipe handshake: expected 'H', got byte 0x%02x", b[0])
				}
				break
			}
			if rerr != nil && rerr != syscall.EAGAIN && rerr != syscall.EINTR {
				syscall.Close(fd)
				return Fail(StatusSystem, "reading the pipe handshake: %v", rerr)
			}
			if pastDeadline(deadline) {
				syscall.Close(fd)
				return Fail(StatusTimeout, "timed out waiting for the writer to attach to the pipe")
			}
			time.Sleep(pause)
			if pause < time.Millisecond {
				pause *= 2
			}
		}
	} else {
		for {
			fd, err = syscall.Open(e.path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
			if err == nil {
				break
			}
			if err == syscall.ENOENT {
				return Fail(StatusClosed, "FIFO %s was removed by its creator", e.path)
			}
			if err != syscall.ENXIO && err != syscall.EINTR {
				return Fail(StatusSystem, "open FIFO %s for writing: %v", e.path, err)
			}
			if pastDeadline(deadline) {
				return Fail(StatusTimeout, "timed out waiting for a reader to open FIFO %s", e.path)
			}
			time.Sleep(fifoOpenRetry)
		}
		e.applySize(fd)
		if _, err := syscall.Write(fd, []byte{pipeHello}); err != nil {
			syscall.Close(fd)
			return Fail(StatusClosed, "the reader left during the handshake: %v", err)
		}
	}
	e.file = os.NewFile(uintptr(fd), e.path)
	return nil
}

func (e *fifoEndpoint) applySize(fd int) {
	if e.pipeSize > 0 {
		syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), 1031 /* F_SETPIPE_SZ */, uintptr(e.pipeSize))
	}
}

func (e *fifoEndpoint) Send(m []byte) error {
	_, err := e.file.Write(m)
	if err != nil {
		if errors.Is(err, syscall.EPIPE) {
			return Fail(StatusClosed, "pipe.fifo: the reader closed the pipe")
		}
		return err
	}
	return nil
}

func (e *fifoEndpoint) Recv(buf []byte, timeout time.Duration) (int, error) {
	if timeout >= 0 {
		_ = e.file.SetReadDeadline(time.Now().Add(timeout))
		defer e.file.SetReadDeadline(time.Time{})
	}
	n, err := e.file.Read(buf)
	if n > 0 {
		return n, nil
	}
	return 0, err
}

func (e *fifoEndpoint) Settings() map[string]string {
	size := 0
	if e.file != nil {
		if sc, err := e.file.SyscallConn(); err == nil {
			sc.Control(func(fd uintptr) {
				r, _, _ := syscall.Syscall(syscall.SYS_FCNTL, fd, 1032 /* F_GETPIPE_SZ */, 0)
				size = int(r)
			})
		}
	}
	return map[string]string{"pipe_size": strconv.Itoa(size), "splice": "none"}
}

func (e *fifoEndpoint) Close() {
	if e.file != nil {
		e.file.Close()
		e.file = nil
	}
	if e.folder != "" {
		os.Remove(e.path)
		os.Remove(e.folder)
		e.folder = ""
	}
}

// ---- socket.unix, socket.tcp ----

type socketEndpoint struct {
	bindingKey                               []byte
	id, role, network, address, path, folder string
	tcp                                      bool
	nodelay                                  bool
	buffers                                  map[string]int
	listener                                 net.Listener
	conn                                     net.Conn
}

func openSocket(p OpenParams, tcp bool) (Endpoint, error) {
	e := &socketEndpoint{id: p.Transport, role: p.Role, tcp: tcp, nodelay: true,
		buffers: map[string]int{}, bindingKey: p.BindingKey}
	known, fixed := []string{"sndbuf", "rcvbuf"}, map[string]string{}
	if tcp {
		known = append(known, "nodelay", "bind")
		fixed["zerocopy"] = "0"
	}
	if err := CheckOptions(p.Transport, p.Options, known, fixed); err != nil {
		return nil, err
	}
	for _, k := range []string{"sndbuf", "rcvbuf"} {
		if v := p.Options[k]; v != "" {
			n, err := ParseBytes(k, v, 1<<30)
			if err != nil {
				return nil, err
			}
			e.buffers[k] = int(n)
		}
	}
	e.nodelay = p.Options["nodelay"] != "0"
	e.network = "unix"
	if tcp {
		e.network = "tcp"
	}
	if p.Role == Connector {
		if tcp {
			if _, err := netip(p.Address); err != nil {
				return nil, err
			}
		} else if !strings.HasPrefix(p.Address, "/") {
			return nil, Fail(StatusBadAddress, "socket.unix address '%s' is not a path", p.Address)
		}
		e.address = p.Address
		return e, nil
	}
	where := p.Address
	if tcp {
		if v := p.Options["bind"]; v != "" {
			where = v
		}
		if where == "" {
			where = "127.0.0.1:0"
		}
		if _, err := netip(where); err != nil {
			return nil, err
		}
	} else {
		dir, err := privateFolder(p.RuntimeDir)
		if err != nil {
			return nil, err
		}
		e.folder, e.path = dir, filepath.Join(dir, "s")
		where = e.path
	}
	l, err := net.Listen(e.network, where)
	if err != nil {
		e.Close()
		return nil, Fail(StatusSystem, "%s: listen on %s: %v", e.id, where, err)
	}
	if !tcp {
		os.Chmod(e.path, 0600)
		l.(*net.UnixListener).SetUnlinkOnClose(false)
	}
	e.listener = l
	return e, nil
}

// netip checks HOST:PORT with a numeric host ([IPV6]:PORT).
func netip(text string) (string, error) {
	host, port, err := net.SplitHostPort(text)
	if err == nil && net.ParseIP(host) != nil {
		if _, perr := strconv.Atoi(port); perr == nil {
			return host, nil
		}
	}
	return "", Fail(StatusBadAddress, "'%s': expected HOST:PORT with a numeric host, e.g. 127.0.0.1:0 or [::1]:0", text)
}

func formatInet(a *net.TCPAddr) string {
	ip := a.IP
	if ip.IsUnspecified() {
		if ip.To4() != nil {
			ip = net.IPv4(127, 0, 0, 1)
		} else {
			ip = net.IPv6loopback
		}
	}
	if ip.To4() != nil {
		return fmt.Sprintf("%s:%d", ip.String(), a.Port)
	}
	return fmt.Sprintf("[%s]:%d", ip.String(), a.Port)
}

func (e *socketEndpoint) Export() string {
	if e.tcp {
		return formatInet(e.listener.Addr().(*net.TCPAddr))
	}
	return e.path
}
func (e *socketEndpoint) Stream() bool   { return true }
func (e *socketEndpoint) Reliable() bool { return true }
func (e *socketEndpoint) Calls() (string, string) {
	if e.tcp {
		return "(*net.TCPConn).Write", "(*net.TCPConn).Read"
	}
	return "(*net.UnixConn).Write", "(*net.UnixConn).Read"
}

func (e *socketEndpoint) Connect(timeout time.Duration) error {
	deadline := deadlineOf(timeout)
	if e.role == Creator {
		type deadliner interface{ SetDeadline(time.Time) error }
		e.listener.(deadliner).SetDeadline(deadline)
		conn, err := e.listener.Accept()
		e.listener.Close()
		e.listener = nil
		e.unlink()
		if err != nil {
			if StatusOf(err) == StatusTimeout {
				return Fail(StatusTimeout, "%s: no peer connected in time", e.id)
			}
			return err
		}
		e.conn = conn
	} else {
		for {
			d := net.Dialer{Deadline: deadline}
			conn, err := d.Dial(e.network, e.address)
			if err == nil {
				e.conn = conn
				if len(e.bindingKey) > 0 { // protocol 1.1: the key, before any data
					if _, err := conn.Write(append([]byte(bindingMagic), e.bindingKey...)); err != nil {
						return Fail(StatusSystem, "%s: present the binding key: %v", e.id, err)
					}
				}
				break
			}
			if StatusOf(err) == StatusTimeout || pastDeadline(deadline) {
				return Fail(StatusTimeout, "%s: connect timed out (%v)", e.id, err)
			}
			if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ENOENT) {
				return Fail(StatusSystem, "%s: connect: %v", e.id, err)
			}
			time.Sleep(socketConnectRetry)
		}
	}
	return e.tune()
}

func (e *socketEndpoint) tune() error {
	if tc, ok := e.conn.(*net.TCPConn); ok {
		tc.SetNoDelay(e.nodelay)
		if n, ok := e.buffers["sndbuf"]; ok {
			tc.SetWriteBuffer(n)
		}
		if n, ok := e.buffers["rcvbuf"]; ok {
			tc.SetReadBuffer(n)
		}
	}
	if uc, ok := e.conn.(*net.UnixConn); ok {
		if n, ok := e.buffers["sndbuf"]; ok {
			uc.SetWriteBuffer(n)
		}
		if n, ok := e.buffers["rcvbuf"]; ok {
			uc.SetReadBuffer(n)
		}
	}
	return nil
}

func (e *socketEndpoint) Send(m []byte) error {
	_, err := e.conn.Write(m)
	if err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
		return Fail(StatusClosed, "%s: the peer closed the connection", e.id)
	}
	return err
}

func (e *socketEndpoint) Recv(buf []byte, timeout time.Duration) (int, error) {
	if timeout >= 0 {
		e.conn.SetReadDeadline(time.Now().Add(timeout))
		defer e.conn.SetReadDeadline(time.Time{})
	}
	n, err := e.conn.Read(buf)
	if n > 0 {
		return n, nil
	}
	if err != nil && errors.Is(err, syscall.ECONNRESET) {
		return 0, io.EOF
	}
	return 0, err
}

func sockopt(c syscall.Conn, level, opt int) string {
	out := ""
	if sc, err := c.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) {
			if v, err := syscall.GetsockoptInt(int(fd), level, opt); err == nil {
				out = strconv.Itoa(v)
			}
		})
	}
	return out
}

func (e *socketEndpoint) Settings() map[string]string {
	out := map[string]string{}
	c, ok := e.conn.(syscall.Conn)
	if !ok {
		return out
	}
	out["sndbuf"] = sockopt(c, syscall.SOL_SOCKET, syscall.SO_SNDBUF)
	out["rcvbuf"] = sockopt(c, syscall.SOL_SOCKET, syscall.SO_RCVBUF)
	if e.tcp {
		if sockopt(c, syscall.IPPROTO_TCP, syscall.TCP_NODELAY) == "0" {
			out["nodelay"] = "0"
		} else {
			out["nodelay"] = "1"
		}
		out["zerocopy"] = "0"
		out["mss"] = sockopt(c, syscall.IPPROTO_TCP, syscall.TCP_MAXSEG)
	}
	return out
}

func (e *socketEndpoint) unlink() {
	if e.folder != "" {
		os.Remove(e.path)
		os.Remove(e.folder)
		e.folder = ""
	}
}

func (e *socketEndpoint) Close() {
	if e.conn != nil {
		e.conn.Close()
	}
	if e.listener != nil {
		e.listener.Close()
	}
	e.unlink()
}

// ---- udp.inet ----

type udpEndpoint struct {
	bindingKey []byte
	role       string
	conn       *net.UDPConn
	peer       *net.UDPAddr
}

func openUDP(p OpenParams) (Endpoint, error) {
	if err := CheckOptions("udp.inet", p.Options, []string{"sndbuf", "rcvbuf", "bind"}, nil); err != nil {
		return nil, err
	}
	if p.MaxMessage > maxUDPDatagramIPv4 {
		return nil, Fail(StatusTooBig, "udp.inet: a datagram of %d B is over the %d B an IPv4 UDP datagram can carry", p.MaxMessage, maxUDPDatagramIPv4)
	}
	e := &udpEndpoint{role: p.Role, bindingKey: p.BindingKey}
	where := p.Address
	if p.Role == Creator {
		if v := p.Options["bind"]; v != "" {
			where = v
		}
		if where == "" {
			where = "127.0.0.1:0"
		}
	}
	if _, err := netip(where); err != nil {
		return nil, err
	}
	addr, err := net.ResolveUDPAddr("udp", where)
	if err != nil {
		return nil, Fail(StatusBadAddress, "udp.inet address '%s': %v", where, err)
	}
	if p.Role == Creator {
		if e.conn, err = net.ListenUDP("udp", addr); err != nil {
			return nil, Fail(StatusSystem, "udp.inet: bind %s: %v", where, err)
		}
	} else {
		e.peer = addr
		if e.conn, err = net.DialUDP("udp", nil, addr); err != nil {
			return nil, Fail(StatusSystem, "udp.inet: %v", err)
		}
	}
	for _, k := range []string{"sndbuf", "rcvbuf"} {
		if v := p.Options[k]; v != "" {
			n, err := ParseBytes(k, v, 1<<30)
			if err != nil {
				e.conn.Close()
				return nil, err
			}
			if k == "sndbuf" {
				e.conn.SetWriteBuffer(int(n))
			} else {
				e.conn.SetReadBuffer(int(n))
			}
		}
	}
	return e, nil
}

func (e *udpEndpoint) Export() string {
	a := e.conn.LocalAddr().(*net.UDPAddr)
	return formatInet(&net.TCPAddr{IP: a.IP, Port: a.Port})
}
func (e *udpEndpoint) Stream() bool   { return false }
func (e *udpEndpoint) Reliable() bool { return false }
func (e *udpEndpoint) Calls() (string, string) {
	return "(*net.UDPConn).Write", "(*net.UDPConn).Read"
}

// Connect: the creator waits for the hello and connect(2)s its socket to the sender, so it
// then talks only to it; the connector says hello every 50 ms until the ack.
func (e *udpEndpoint) Connect(timeout time.Duration) error {
	deadline := deadlineOf(timeout)
	buf := make([]byte, 64)
	if e.role == Creator {
		for {
			e.conn.SetReadDeadline(deadline)
			n, from, err := e.conn.ReadFromUDP(buf)
			if err != nil {
				return Fail(StatusTimeout, "udp.inet: no hello from the peer")
			}
			if string(buf[:n]) != udpHello {
				continue
			}
			sa := &syscall.SockaddrInet4{Port: from.Port}
			var sa6 *syscall.SockaddrInet6
			if ip4 := from.IP.To4(); ip4 != nil {
				copy(sa.Addr[:], ip4)
			} else {
				sa6 = &syscall.SockaddrInet6{Port: from.Port}
				copy(sa6.Addr[:], from.IP.To16())
			}
			var cerr error
			sc, _ := e.conn.SyscallConn()
			sc.Control(func(fd uintptr) {
				if sa6 != nil {
					cerr = syscall.Connect(int(fd), sa6)
				} else {
					cerr = syscall.Connect(int(fd), sa)
				}
			})
			if cerr != nil {
				return Fail(StatusSystem, "udp.inet: connect to the peer: %v", cerr)
			}
			e.conn.SetReadDeadline(time.Time{})
			_, err = e.conn.Write([]byte(udpAck))
			return err
		}
	}
	hello := []byte(udpHello)
	if len(e.bindingKey) > 0 {
		hello = append([]byte(udpBoundHello), e.bindingKey...)
	}
	for {
		e.conn.Write(hello) // refused meanwhile: the creator is not bound yet
		step := time.Now().Add(udpHelloPeriod)
		if !deadline.IsZero() && deadline.Before(step) {
			step = deadline
		}
		e.conn.SetReadDeadline(step)
		n, err := e.conn.Read(buf)
		if err == nil && string(buf[:n]) == udpAck {
			e.conn.SetReadDeadline(time.Time{})
			return nil
		}
		if pastDeadline(deadline) {
			return Fail(StatusTimeout, "udp.inet: the peer did not answer the hello")
		}
	}
}

func (e *udpEndpoint) Send(m []byte) error {
	_, err := e.conn.Write(m)
	if err != nil && errors.Is(err, syscall.ECONNREFUSED) {
		return Fail(StatusClosed, "udp.inet: the peer socket is gone")
	}
	return err
}

func (e *udpEndpoint) Recv(buf []byte, timeout time.Duration) (int, error) {
	if timeout >= 0 {
		e.conn.SetReadDeadline(time.Now().Add(timeout))
		defer e.conn.SetReadDeadline(time.Time{})
	}
	for {
		n, err := e.conn.Read(buf)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				return 0, Fail(StatusClosed, "udp.inet: the peer socket is gone")
			}
			return 0, err
		}
		if n == len(udpHello) {
			s := string(buf[:n])
			if s == udpHello {
				e.conn.Write([]byte(udpAck))
				continue
			}
			if s == udpAck {
				continue
			}
		}
		if n == 0 {
			continue
		}
		return n, nil
	}
}

func (e *udpEndpoint) Settings() map[string]string {
	return map[string]string{
		"sndbuf": sockopt(e.conn, syscall.SOL_SOCKET, syscall.SO_SNDBUF),
		"rcvbuf": sockopt(e.conn, syscall.SOL_SOCKET, syscall.SO_RCVBUF),
	}
}

func (e *udpEndpoint) Close() { e.conn.Close() }
