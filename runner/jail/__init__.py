"""The jail's own room: the warm path's zygote and the sandbox each of its runs builds for itself.

The zygote (``__main__.py``) is a long-lived, sandboxed process with numpy loaded that forks one
fresh run per submission. It is started by ``grader/sandbox/zygote.py`` inside the same bubblewrap
jail as a cold runner (read-only Python, numpy and runner; no network; cleared environment; an
unprivileged uid; no capabilities; ``no_new_privs``). It never runs student code itself: it has
read nothing but Python, numpy and the runner, and holds no secrets.

Per request (on the control socket named on its command line: four pipe fds by ``SCM_RIGHTS``
and the run's limits) it forks a *launcher*, which makes new user, mount, pid, network, IPC, UTS and
cgroup namespaces (mapping only its own uid and gid), mounts a fresh size-capped tmpfs on ``/tmp``
and ``/dev/shm`` and an empty read-only one on ``/dev/pts`` (no ptys), forks the run's *init* (pid 1
of the new pid namespace), hands the grader a pidfd for it and waits. The init mounts a read-only
``/proc`` of its own, hides the host ``/proc`` the kernel needed to allow that, forks the *runner*
and reports how the runner ended (wait status, CPU time). The runner keeps only its four pipes,
sets its rlimits, drops every capability, installs the seccomp filter and serves requests with
``runner/main.py``'s loop. Killing the init kills the whole namespace. Nothing one run leaves
(files, processes, module state) is seen by the next.

Where each part lives: ``__main__`` (the zygote's request loop), ``processes`` (the launcher, init
and runner each run does), ``namespaces`` (the namespaces and mounts), ``descriptors`` (the run's
fds), ``limits`` (its rlimits), ``privileges`` (capabilities, ``no_new_privs``, seccomp),
``messages`` (what each tells the grader) and ``libc`` (the system calls, through ctypes).

Only the standard library and numpy: this runs inside the sandbox and must not import the grader.
"""
