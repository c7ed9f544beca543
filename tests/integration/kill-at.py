#!/usr/bin/env python3
"""kill-at.py SYSCALL[=PATH] -- COMMAND...: run COMMAND and kill it with
SIGKILL as its main thread enters its first SYSCALL (openat with PATH as
its file name, or fsync), as a CI job's own timeout or the OOM killer
would: a point the test names, where a timer would be a race. Exits as
the shell does: 128 + the signal that ended COMMAND, or its status.
ptrace through libc, x86-64 only (user_regs_struct)."""
import ctypes
import os
import signal
import sys

PTRACE_TRACEME, PTRACE_GETREGS, PTRACE_SYSCALL, PTRACE_SETOPTIONS = 0, 12, 24, 0x4200
PTRACE_O_TRACESYSGOOD, PTRACE_O_EXITKILL = 1, 0x100000
SYSCALLS = {'openat': 257, 'fsync': 74}
RSI, ORIG_RAX = 13, 15   # in struct user_regs_struct (sys/user.h)

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.ptrace.restype = ctypes.c_long


def ptrace(req, pid, data=None):
    if libc.ptrace(req, pid, None, data) < 0:
        raise OSError(ctypes.get_errno(), f'ptrace {req}')


def string_at(pid, addr):
    """The NUL-terminated string at addr, read a page at a time (a read
    past the string's page may reach one that is not mapped)."""
    s = b''
    with open(f'/proc/{pid}/mem', 'rb', buffering=0) as mem:
        while b'\0' not in s and len(s) < 4096:
            mem.seek(addr + len(s))
            s += mem.read(4096 - (addr + len(s)) % 4096)
    return s.split(b'\0')[0].decode(errors='replace')


def wanted(pid, nr, path):
    regs = (ctypes.c_ulong * 27)()
    ptrace(PTRACE_GETREGS, pid, ctypes.addressof(regs))
    if regs[ORIG_RAX] != nr:
        return False
    return path is None or string_at(pid, regs[RSI]) == path


def status_of(st):
    return 128 + os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st)


def main():
    if len(sys.argv) < 4 or sys.argv[2] != '--':
        sys.exit(__doc__)
    name, _, path = sys.argv[1].partition('=')
    nr, path = SYSCALLS[name], path or None
    pid = os.fork()
    if pid == 0:
        ptrace(PTRACE_TRACEME, 0)
        os.execvp(sys.argv[3], sys.argv[3:])
    _, st = os.waitpid(pid, 0)   # stopped at the exec
    ptrace(PTRACE_SETOPTIONS, pid, PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)
    entering, sig = True, 0
    while True:
        ptrace(PTRACE_SYSCALL, pid, sig)
        _, st = os.waitpid(pid, 0)
        if not os.WIFSTOPPED(st):
            sys.exit(status_of(st))
        sig = 0
        if os.WSTOPSIG(st) != signal.SIGTRAP | 0x80:
            sig = os.WSTOPSIG(st)   # the command's own signal, passed on
            continue
        if entering and wanted(pid, nr, path):
            os.kill(pid, signal.SIGKILL)
            _, st = os.waitpid(pid, 0)
            sys.exit(status_of(st))
        entering = not entering


main()
