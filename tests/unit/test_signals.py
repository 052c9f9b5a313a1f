"""Stop signals acted on away from the handler (monitor/commands/signals.py).

Each case runs in a child process of its own: signals and their handlers belong to a
process, and a case that fails by hanging must not hang the suite (the parent waits with a
timeout)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_child(body: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    script = "import os, signal, threading, time\n" + textwrap.dedent(body)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)  # fmt: skip


def test_a_signal_that_lands_inside_a_log_line_stops_the_daemon() -> None:
    """The signal arrives while the main thread holds the log writer's lock (it is in the
    middle of writing a line). The daemon's handler used to log "stopping" itself, on that
    thread: it waited for the lock its own thread held, for good. Now the line comes once the
    main thread lets go, and the stop is set."""
    child = run_child("""
        import structlog
        from monitor.core import log, logwriter
        from monitor.commands.lifecycle import _install_signal_handlers
        log.configure("info", "json")
        stop = threading.Event()
        signals = _install_signal_handlers(stop, 60, structlog.get_logger())
        with logwriter._thread_lock:  # a line being written
            os.kill(os.getpid(), signal.SIGTERM)
            until = time.monotonic() + 0.5
            while time.monotonic() < until:  # the Python-level handler runs in here
                pass
        print("stopped" if stop.wait(10) else "not stopped", flush=True)
        signals.close()
    """)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "stopped"
    assert '"event": "stopping"' in child.stderr and '"signal": "SIGTERM"' in child.stderr


def test_a_signal_while_the_main_thread_waits_on_the_stop_event_sets_it() -> None:
    """``ragmon probe --every`` waits on its stop event on the main thread; its handler
    set that event from the main thread, inside the wait's own lock at moments."""
    child = run_child("""
        from monitor.commands.signals import StopOnSignal
        stop = threading.Event()
        signals = StopOnSignal(stop).install()
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        print("stopped" if stop.wait(10) else "not stopped", flush=True)
        signals.close()
    """)
    assert child.returncode == 0, child.stderr
    assert child.stdout.strip() == "stopped"


def test_on_stop_runs_once_and_a_second_sigint_exits_at_once() -> None:
    child = run_child("""
        from monitor.commands.signals import StopOnSignal
        stop = threading.Event()
        calls = []
        StopOnSignal(stop, calls.append, second_sigint_exits=True).install()
        os.kill(os.getpid(), signal.SIGTERM)
        stop.wait(10)
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGTERM)  # a second SIGTERM: nothing more
        time.sleep(0.3)
        print(calls, flush=True)
        os.kill(os.getpid(), signal.SIGINT)  # a second SIGINT: out at once
        time.sleep(5)
        print("still running", flush=True)
    """)
    assert child.stdout.strip() == "['SIGTERM']"
    assert child.returncode == 130


def test_without_second_sigint_exits_the_process_keeps_stopping() -> None:
    child = run_child("""
        from monitor.commands.signals import StopOnSignal
        stop = threading.Event()
        StopOnSignal(stop).install()
        os.kill(os.getpid(), signal.SIGINT)
        stop.wait(10)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)
        print("finished", flush=True)
    """)
    assert (child.returncode, child.stdout.strip()) == (0, "finished")


def test_close_gives_the_signals_back() -> None:
    """After ``close`` the handlers and the wakeup fd are those from before ``install``."""
    child = run_child("""
        from monitor.commands.signals import StopOnSignal
        mine = lambda *_: None
        signal.signal(signal.SIGTERM, mine)
        before_fd = signal.set_wakeup_fd(-1)
        signals = StopOnSignal(threading.Event()).install()
        assert signal.getsignal(signal.SIGTERM) is not mine
        signals.close()
        print(signal.getsignal(signal.SIGTERM) is mine,
              signal.getsignal(signal.SIGINT) is signal.default_int_handler,
              signal.set_wakeup_fd(-1), threading.active_count(), flush=True)
    """)
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == ["True", "True", "-1", "1"]


def test_the_daemons_commands_take_their_signals_through_stop_on_signal() -> None:
    """No command installs a handler of its own with ``signal.signal`` (the one way in is
    ``commands.signals``), so no handler can take a lock on the thread it interrupts."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "monitor").rglob("*.py"))
        if path.name != "signals.py" and "signal.signal(" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
