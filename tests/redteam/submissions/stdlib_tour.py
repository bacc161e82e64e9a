# Not an attack: a correct solution that uses the standard library's processes, threads, files and clocks.
import concurrent.futures
import multiprocessing
import os
import pathlib
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import numpy as np

DONE = []


def _square(n):
    return n * n


def tour():
    report = []
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        report.append(f"threads {sum(pool.map(_square, range(4)))}")
    done = subprocess.run(["sh", "-c", "echo shell; ls /tmp >/dev/null"], capture_output=True, text=True, timeout=5)
    report.append(f"subprocess {done.returncode} {done.stdout.strip()}")
    # (One worker, no pool: each thread's malloc arena reserves 64 MB of the run's address space.)
    receiver, sender = multiprocessing.Pipe(duplex=False)
    worker = multiprocessing.get_context("fork").Process(target=lambda: sender.send(sum(map(_square, range(4)))))
    worker.start()
    report.append(f"multiprocessing {receiver.recv()}")
    worker.join()
    lock = multiprocessing.Lock()
    with lock:
        report.append("semaphore")
    child = os.fork()
    if child == 0:
        os._exit(7)
    report.append(f"fork {os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])}")
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder, "a.txt")
        path.write_text("x" * 100)
        os.chmod(path, 0o600)
        os.utime(path)
        shutil.copy(path, pathlib.Path(folder, "b.txt"))
        os.rename(pathlib.Path(folder, "b.txt"), pathlib.Path(folder, "c.txt"))
        os.symlink("c.txt", pathlib.Path(folder, "d.txt"))
        report.append(f"files {sorted(os.listdir(folder))} {os.readlink(pathlib.Path(folder, 'd.txt'))}")
        with open(path, "r+b") as handle:
            os.fsync(handle.fileno())
            os.truncate(handle.fileno(), 10)
        report.append(f"scandir {[entry.name for entry in os.scandir(folder)][:1]}")
    read_end, write_end = os.pipe()
    os.write(write_end, b"x")
    poller = select.poll()
    poller.register(read_end, select.POLLIN)
    report.append(f"poll {len(poller.poll(100))} select {len(select.select([read_end], [], [], 0.1)[0])}")
    signal.signal(signal.SIGALRM, lambda *_: None)
    signal.setitimer(signal.ITIMER_REAL, 0.01)
    time.sleep(0.05)
    report.append(f"clocks {time.monotonic() > 0} {time.process_time() >= 0} {time.thread_time() >= 0}")
    report.append(f"system {os.cpu_count()} {os.uname().sysname} {len(os.urandom(8))} {os.getloadavg() is not None}")
    event = threading.Event()
    timer = threading.Timer(0.01, event.set)
    timer.start()
    report.append(f"timer {event.wait(2)}")
    print("\n".join(report))
    return True


def attend_step(x_t, cache, p):
    if not DONE:
        DONE.append(tour())
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
