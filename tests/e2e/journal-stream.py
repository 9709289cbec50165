#!/usr/bin/python3
"""journal-stream SOCKET IDENT CMD...: run CMD with stderr connected to journald's stream socket SOCKET (a namespace's
/run/systemd/journal.NS/stdout) and $JOURNAL_STREAM set to that stream's
DEVICE:INODE, as systemd does for a service with StandardError=journal (stdout is
left as it is, so the command's report stays out of the journal).

The stream header is the one systemd's own clients send (systemd-cat,
sd_journal_stream_fd(3)): identifier, unit, priority, whether to read
"<N>" prefixes, then syslog, kmsg and console forwarding, a line each
(systemd's src/journal/journald-stream.c documents the order)."""
import os
import socket
import sys

if len(sys.argv) < 4:
    sys.exit("usage: journal-stream SOCKET IDENT CMD...")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.shutdown(socket.SHUT_RD)
# priority 6 (info) for a line without a prefix; prefixes parsed
s.sendall(("%s\n\n6\n1\n0\n0\n0\n" % sys.argv[2]).encode())
os.dup2(s.fileno(), 2)
st = os.fstat(2)
os.environ["JOURNAL_STREAM"] = "%d:%d" % (st.st_dev, st.st_ino)
os.execvp(sys.argv[3], sys.argv[3:])
