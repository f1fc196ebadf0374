"""Whether a study's OUT.part/ is still being written, in the words of
`vibro info` (tools/part_state.c): each writer holds its lock.rNNN with
flock, exclusively, from its start to its end, and wrote its process
number in it; a shared probe that is let go at once fails exactly while
one runs."""

import fcntl
import os
import re


def state(part):
    """"running (process N)" while a writer of the shard directory `part`
    holds its lock; "interrupted (process N is gone)" when the locks are
    there and none is held (N: rank 0's, else the first); "interrupted (no
    process writes it)" when there is no lock."""
    try:
        names = sorted(os.listdir(part))
    except OSError:
        names = []
    running, gone, locks = None, None, 0
    for name in names:
        m = re.fullmatch(r"lock\.r([0-9]{3})", name)
        if not m:
            continue
        try:
            fd = os.open(os.path.join(part, name),
                         os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                held = False
            except BlockingIOError:
                held = True
            except OSError:
                held = False
            text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        finally:
            os.close(fd)            # lets go of the probe's lock
        locks += 1
        pid = int(text) if text.isdigit() else 0
        if held and running is None:
            running = pid
        if not held and pid > 0 and (gone is None or m.group(1) == "000"):
            gone = pid
    if running is not None:
        return "running (process %d)" % running if running > 0 else "running"
    if locks and gone:
        return "interrupted (process %d is gone)" % gone
    return "interrupted (no process writes it)"
