"""One cgroup per sandboxed run: a memory, process and CPU ceiling for its whole process tree.

rlimits hold per process (``RLIMIT_AS``) or per uid (``RLIMIT_NPROC``): sixteen children that each
stay under the address-space limit can still use sixteen times the memory. A run's cgroup caps the
tree as a whole, gives each run one equal CPU share (a fork bomb competes with honest runs as *one*
group, not as hundreds of tasks), tells the grader exactly when the kernel's OOM killer acted, and is
a second way to kill every task of a run on timeout.

cgroups v1 and v2 are two implementations of one interface (:class:`RunCgroup`): ``v1.py`` and
``v2.py`` say how they differ. Without a writable hierarchy (not root, a read-only
``/sys/fs/cgroup`` in a container, v2 without delegation) :func:`status` says why and runs keep
their other protections: rlimits, the per-run uid and the pid-namespace kill. That fallback is
logged and reported by ``mlkata doctor``, with the ceiling the grader's own cgroup (in a container,
the container's: ``enclosing.py``) puts on all runs together.
"""

from grader.sandbox.cgroups.enclosing import Enclosing
from grader.sandbox.cgroups.host import PREFIX, Fallback, Host, create_run, detect, enclosing, status, use_mount_root
from grader.sandbox.cgroups.run import CgroupError, RunCgroup

__all__ = [
    "PREFIX",
    "CgroupError",
    "Enclosing",
    "Fallback",
    "Host",
    "RunCgroup",
    "create_run",
    "detect",
    "enclosing",
    "status",
    "use_mount_root",
]
