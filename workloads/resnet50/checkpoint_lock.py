"""One run at a time per ``--checkpoint DIR``: a lock file holding the owner's pid.

Two runs saving into one directory would overwrite each other's checkpoint, and
a resumed run would continue from whichever wrote last. So a run that saves or
resumes takes ``DIR/resnet50.lock`` when it starts, and a second run refuses
with one line naming the first one's pid, before it builds anything.

The lock is an ``flock`` on that file, which the kernel drops when its process
ends however it ends; the pid written inside is only for the message. A lock
file left by a killed run is therefore taken over, and so are the temporary
files that run left while saving. Where the filesystem has no ``flock``, the
pid alone decides: a lock whose pid is alive is refused, one whose pid is gone
is taken over.

Torch-free: the entry point takes the lock before torch is imported, in the
process that outlives the run (the launcher of a data-parallel run).
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from workloads.child.harness import WorkloadError

LOCK_NAME = "resnet50.lock"
PARTIAL_GLOB = "resnet50-last.pt*.partial"  # see checkpoint.save: one temporary name per process


class CheckpointLock:
    """The held lock on a checkpoint directory; :meth:`release` removes it (and the directory, if it made it)."""

    def __init__(self, directory: str | os.PathLike[str]):
        self.directory = Path(directory).expanduser()
        self.path = self.directory / LOCK_NAME
        self._fd: int | None = None
        self._made_directory = False

    def acquire(self) -> "CheckpointLock":
        try:
            if not self.directory.is_dir():
                self.directory.mkdir(parents=True, exist_ok=True)
                self._made_directory = True
            for _ in range(5):  # a racing run may remove the file between our open and our lock
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
                if self._lock(fd) and self._still_the_file(fd):
                    break
                os.close(fd)
            else:
                raise WorkloadError(f"--checkpoint {self.directory}: another run keeps taking {LOCK_NAME}",
                                    hint="give this run another --checkpoint DIR")
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:
            raise WorkloadError(f"cannot use --checkpoint {self.directory}: {exc.strerror or exc}",
                                hint="check the directory is writable, or give another --checkpoint DIR") from None
        self._fd = fd
        for left in self.directory.glob(PARTIAL_GLOB):  # a killed run's half-written save
            left.unlink(missing_ok=True)
        return self

    def _lock(self, fd: int) -> bool:
        """Lock ``fd``; False if it changed hands meanwhile. WorkloadError when a live run holds it."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            self._refuse(fd, _owner(fd))
        except OSError as exc:
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                raise
        owner = _owner(fd)  # no flock here: the pid alone says whether the lock is live
        if owner is not None and owner != os.getpid() and _alive(owner):
            self._refuse(fd, owner)
        return True

    def _refuse(self, fd: int, owner: int | None) -> None:
        os.close(fd)
        self._forget_directory()
        who = f"pid {owner}" if owner is not None else "a process whose pid it does not say"
        raise WorkloadError(f"another run ({who}) is using --checkpoint {self.directory} ({self.path} is locked)",
                            hint="wait for that run to end, stop it, or give this run another --checkpoint DIR")

    def _still_the_file(self, fd: int) -> bool:
        try:
            return os.stat(self.path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            return False

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            if self._still_the_file(self._fd):
                self.path.unlink(missing_ok=True)
        except OSError:
            pass
        os.close(self._fd)  # drops the flock
        self._fd = None
        self._forget_directory()

    def _forget_directory(self) -> None:
        """Remove the directory this run made, if nothing was saved in it (a refused or failed run leaves none)."""
        if self._made_directory:
            try:
                self.directory.rmdir()
            except OSError:
                pass
            self._made_directory = False

    def __enter__(self) -> "CheckpointLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _owner(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
