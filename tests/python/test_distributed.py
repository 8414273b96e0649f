"""adept.distributed and DistributedDataParallel as 2-rank Open MPI jobs (issue 21).

Each test starts `mpirun -np 2` on a script of tests/python/distributed/ in a subprocess, one job at a
time (pytest runs the tests of this file serially), with a wall-clock limit so that nothing hangs:
- collectives.py: every collective of the Python API against NumPy, async Work, errors, DistributedSampler;
- ddp.py: DistributedDataParallel against single-process references (see its docstring);
- faults.py MODE: one rank fails (exception, SIGKILL, early exit, stuck, mismatched collective) while the
  other waits in a collective; the job must end within a bounded time, with a nonzero status and a message
  that names the rank (and, for a timeout or a mismatch, the collective and its sequence number).
Runs once, on the CPU run of the suite (skipped under --device vulkan: these jobs are about processes, not
the device). Both Open MPI's default transport and ob1 over self,vader,tcp run for the basic jobs.
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "distributed"
MPIRUN = shutil.which("mpirun")
TRANSPORTS = {"default": [], "ob1": ["--mca", "pml", "ob1", "--mca", "btl", "self,vader,tcp"]}
# A fault must end the job well within this (seconds); generous for a loaded 2-core CI machine, far below
# the 120 s timeout the non-timeout fault jobs give their process group.
FAULT_LIMIT = 40


@pytest.fixture(autouse=True)
def _cpu_run_only(device):
    if device != "cpu":
        pytest.skip("MPI jobs run once, on the CPU run of the suite")
    if MPIRUN is None:
        pytest.fail("mpirun not found: scripts/setup.sh installs openmpi-bin")


def _command(script, args, transport):
    return [MPIRUN, "-np", "2", "--oversubscribe", "--allow-run-as-root", "--bind-to", "none",
            "-x", "OMP_NUM_THREADS=1", "-x", "PYTHONPATH", *TRANSPORTS[transport],
            sys.executable, str(HERE / script), *args]


def _env():
    env = dict(os.environ)
    env["OMP_NUM_THREADS"] = "1"
    # The ranks import adept from where this process did (the suite runs with PYTHONPATH=<build>/python).
    import adept
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(adept.__file__)))  # not resolved: symlinks
    env["PYTHONPATH"] = os.pathsep.join([package_dir]
                                        + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def _session_members(sid):
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":  # fields: state, ppid, pgrp, session
                pids.append(int(entry))
    return pids


def _kill_job(proc):
    """Ends a job that overran: SIGTERM to mpirun (which stops its ranks), then SIGKILL to whatever is left
    of the session it was started in (the ranks have process groups of their own, but not sessions)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    for pid in _session_members(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def mpirun(script, *args, transport="default", limit=120):
    """Runs a 2-rank job; returns (exit status, stdout+stderr, seconds). Fails the test past `limit`."""
    t0 = time.monotonic()
    proc = subprocess.Popen(_command(script, args, transport), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=_env(), start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        _kill_job(proc)
        out, _ = proc.communicate()
        pytest.fail(f"{script} {' '.join(args)} did not end within {limit} s:\n{out}")
    seconds = time.monotonic() - t0
    _assert_no_leftovers(proc, out)
    return proc.returncode, out, seconds


def _assert_no_leftovers(proc, out):
    """No process of the job's session outlives mpirun (a rank left running would hold the cores)."""
    deadline = time.monotonic() + 5
    while _session_members(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = _session_members(proc.pid)
    if left:
        _kill_job(proc)
        pytest.fail(f"processes {left} still run after mpirun ended:\n{out}")


def _pid_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_collectives(transport):
    rc, out, _ = mpirun("collectives.py", transport=transport)
    assert rc == 0, out
    for r in (0, 1):
        assert f"rank {r}: collectives OK" in out, out


def test_ddp():
    rc, out, _ = mpirun("ddp.py")
    assert rc == 0, out
    for r in (0, 1):
        assert f"rank {r}: ddp OK" in out, out


def test_sync_batch_norm_equals_batch_norm_over_the_global_batch():
    rc, out, _ = mpirun("sync_bn.py")
    assert rc == 0 and "rank 0: sync_bn OK" in out and "rank 1: sync_bn OK" in out, out


def test_ddp_eval_mode_backward_averages_gradients():
    # torch arms its reducer whenever grad mode is on: a backward after ddp.eval() (frozen BatchNorm) averages too.
    rc, out, _ = mpirun("ddp.py", "eval_grad")
    assert rc == 0, out


def test_singleton_without_mpirun():
    # `python3 script.py` without mpirun: a process group of one.
    env = {k: v for k, v in _env().items() if not k.startswith(("OMPI_", "PMIX_"))}
    proc = subprocess.run([sys.executable, str(HERE / "singleton.py")], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, env=env, timeout=120, start_new_session=True)
    assert proc.returncode == 0 and "singleton OK" in proc.stdout, proc.stdout


def run_fault(mode, transport="default"):
    rc, out, seconds = mpirun("faults.py", mode, transport=transport, limit=FAULT_LIMIT + 30)
    assert "UNREACHABLE" not in out, out
    assert rc != 0, f"the job should fail:\n{out}"
    assert seconds < FAULT_LIMIT, f"the job took {seconds:.1f} s to end:\n{out}"
    return out


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_fault_exception_aborts_the_job(transport):
    # Rank 1 raises while rank 0 waits in all_reduce: the exception hook prints the traceback and aborts.
    out = run_fault("raise", transport)
    assert "RuntimeError: injected failure on rank 1" in out, out
    assert "adept.distributed: rank 1 raised RuntimeError: injected failure on rank 1" in out, out


def test_fault_exception_with_async_work_in_flight():
    out = run_fault("raise_async")
    assert "adept.distributed: rank 1 raised ValueError: injected failure on rank 1" in out, out


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_fault_rank_killed(transport):
    # SIGKILL: no Python code runs on rank 1; mpirun notices the death and ends the job, naming the rank.
    out = run_fault("kill", transport)
    assert re.search(r"rank 1 with PID \d+ .*exited on signal 9", out, re.S), out


def test_fault_rank_exits_early():
    # sys.exit(3) on rank 1 while rank 0 waits in all_reduce #3: no exception hook runs, but the exit's
    # destroy_process_group starts with a barrier, which meets the all_reduce as collective #3 and ends the job
    # at once instead of at rank 0's timeout.
    out = run_fault("timeout_exit")
    # Either rank may see it first; both messages say that rank 1 is leaving, not that a barrier mismatched.
    assert re.search(r"rank 0: rank 1 left the process group \(destroy_process_group, or its process is exiting\) "
                     r"while this rank is in collective #3 \(all_reduce, sum, float32 \[4\] on cpu\)", out) or \
        re.search(r"rank 1: this rank is leaving the process group \(destroy_process_group, or the process is "
                  r"exiting\) while rank 0 is in collective #3 \(4 elements\)", out), out


@pytest.mark.parametrize("mode,transport", [("timeout", "default"), ("timeout", "ob1"), ("timeout_async", "default")])
def test_fault_stuck_collective_times_out(mode, transport):
    out = run_fault(mode, transport)
    # all_reduce #1 and barrier #2 went through (sequence numbers start at 1); #3 is the one rank 1 never
    # started.
    assert re.search(r"rank 0: collective all_reduce #3 \(sum, float32 \[4\] on cpu\) did not finish within the "
                     r"timeout of 3\.0 s: rank 1 did not arrive", out), out


def _check_mismatch(out, what):
    # Collective #3 (after all_reduce #1 and barrier #2) differs; either rank may catch it first.
    m = re.search(r"rank (\d): collective #3 is (\w+) .* but rank (\d) started a different collective #3 [^\n]*"
                  + what, out)
    assert m and m.group(1) != m.group(3), out
    return m


def test_fault_mismatched_collectives():
    m = _check_mismatch(run_fault("mismatch_op"), "another op")
    assert m.group(2) == ("all_reduce" if m.group(1) == "0" else "broadcast"), m.group(0)


@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_fault_mismatched_sizes(transport):
    out = run_fault("mismatch_size", transport)
    m = _check_mismatch(out, "")
    assert "4 elements" in m.group(0) and "6 elements" in m.group(0), m.group(0)


def test_fault_mismatched_dtypes():
    _check_mismatch(run_fault("mismatch_dtype"), "another dtype")


def test_fault_mismatched_broadcast_source():
    m = _check_mismatch(run_fault("mismatch_src"), r"src \d where this rank has src \d")
    assert m.group(2) == "broadcast", m.group(0)


def test_fault_ddp_parameter_unused_on_one_rank():
    # Without find_unused_parameters, rank 1's backward names the parameter it did not use, then the job ends.
    out = run_fault("ddp_unused_on_some_ranks")
    assert re.search(r"adept.distributed: rank 1 raised \w+: DistributedDataParallel: parameters that did not "
                     r"receive a gradient in this backward on rank 1: sometimes\.weight", out), out
    assert "find_unused_parameters=True" in out, out


def test_fault_ddp_of_different_models():
    out = run_fault("ddp_different_models")
    assert re.search(r"DistributedDataParallel: every rank must wrap the same model, but rank \d has 4 parameters "
                     r"that require grad and rank \d has 4, with other shapes or dtypes", out), out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_to_mpirun_stops_every_rank(sig):
    # What Ctrl-C or a scheduler's kill does: signal mpirun while the ranks loop in collectives; every rank
    # must be gone soon after, none left behind.
    proc = subprocess.Popen(_command("faults.py", ["loop"], "default"), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=_env(), start_new_session=True)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            pids = [int(p) for p in re.findall(r"rank \d pid (\d+) ready", "".join(lines))]
            if len(pids) == 2:
                break
            time.sleep(0.05)
        assert len(pids) == 2, "the ranks did not start:\n" + "".join(lines)
        time.sleep(0.5)  # well inside the loop of collectives
        t0 = time.monotonic()
        proc.send_signal(sig)
        try:
            proc.wait(timeout=FAULT_LIMIT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"mpirun did not end within {FAULT_LIMIT} s of {sig.name}:\n" + "".join(lines))
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            _kill_job(proc)
        reader.join(timeout=10)
    out = "".join(lines)
    assert proc.returncode != 0, out
    assert seconds < 15, f"{seconds:.1f} s to stop after {sig.name}:\n{out}"
    assert "UNREACHABLE" not in out, out
    _assert_no_leftovers(proc, out)
    assert not any(_pid_alive(p) for p in pids), out
