"""Closing the store while other threads are inside its statements: they get an error, the process lives.

CI found it: a background command's thread stored its task's state while the test's end closed the
store, and SQLite, stepping the statement with Python's lock released, read freed memory (a segfault).
The race runs in a child process, so that a crash fails this test instead of ending the test run.
"""

import subprocess
import sys
import textwrap

RACE = textwrap.dedent(
    """
    import tempfile, threading, time
    from pathlib import Path
    from mewrk_jupyter.store.db import Database
    from mewrk_jupyter.store.tasks import set_task_state

    errors = []
    for _ in range(10):
        with tempfile.TemporaryDirectory() as folder:
            db = Database(Path(folder) / "mewrk.db")
            stop = threading.Event()

            def work():
                while not stop.is_set():
                    try:
                        with db.tx() as conn:
                            conn.execute("SELECT count(*) FROM sessions").fetchall()
                            set_task_state(conn, "task-1", "completed")
                    except Exception as exc:
                        errors.append(type(exc).__name__)

            threads = [threading.Thread(target=work) for _ in range(3)]
            for thread in threads:
                thread.start()
            time.sleep(0.01)
            db.close()
            stop.set()
            for thread in threads:
                thread.join()
    print("lived", len(errors))
    """
)


def test_closing_the_store_under_running_statements_does_not_crash_the_process():
    done = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("lived")
