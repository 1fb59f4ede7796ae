//go:build unix

package server_test

import "syscall"

// smallReceiveBuffer makes a socket's receive buffer 4 KiB, so that a
// reader that never reads stalls the writer soon.
func smallReceiveBuffer(fd uintptr) error {
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
}
