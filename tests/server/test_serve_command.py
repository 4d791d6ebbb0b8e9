"""``puntobanco serve`` as a user runs it: a fresh machine, the printed address, the operator's
password shown once, Ctrl-C, and mistakes answered in one sentence with exit status 2."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from .support import free_port, wait_until

COMMAND = [sys.executable, "-c", "from puntobanco.cli import main; main()"]


def _start(*args: str, cwd: Path, env: dict[str, str] | None = None,
           open_files: int | None = None) -> subprocess.Popen[str]:
    def lower_limit() -> None:  # as a login shell often starts it: 1,024 open files or fewer
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (open_files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    return subprocess.Popen([*COMMAND, "serve", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, preexec_fn=lower_limit)


def _open_files_limit(pid: int) -> tuple[str, str]:
    """(soft, hard) "Max open files" of a running process, from /proc."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return soft, hard
    raise AssertionError("no open-files line")


def _first_lines(process: subprocess.Popen[str], url: str) -> str:
    def up() -> bool:
        try:
            return httpx.get(f"{url}/api/tables", timeout=2).status_code == 200
        except httpx.HTTPError:
            return process.poll() is not None

    wait_until(up, timeout=60)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert "Traceback" not in err, err
    return out


def test_serve_on_a_fresh_directory_creates_var_and_prints_the_address(tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PUNTOBANCO_OPERATOR_PASSWORD"}
    out = _first_lines(_start("--port", str(port), cwd=tmp_path, env=env),
                       f"http://127.0.0.1:{port}")
    assert f"http://127.0.0.1:{port}/" in out
    assert (tmp_path / "var" / "puntobanco.sqlite3").is_file()
    password = out.split("password '")[1].split("'")[0]
    assert len(password) >= 12
    # the second start finds the operator: no password is printed again, and it logs in
    port = free_port()
    process = _start("--port", str(port), cwd=tmp_path, env=env, open_files=256)
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: process.poll() is not None or _up(url), timeout=60)
    soft, hard = _open_files_limit(process.pid)  # lifted, so 1,000 players' sockets fit
    assert soft == hard and soft != "256", (soft, hard)
    login = httpx.post(f"{url}/api/login", json={"username": "operator", "password": password})
    assert login.status_code == 200 and login.json()["player"]["role"] == "operator"
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert "password" not in out


def test_the_operator_password_can_be_chosen(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": "chosen-secret"}
    process = _start("--port", str(port), cwd=tmp_path, env=env)
    url = f"http://127.0.0.1:{port}"
    wait_until(lambda: process.poll() is not None or _up(url), timeout=60)
    login = httpx.post(f"{url}/api/login", json={"username": "operator",
                                                 "password": "chosen-secret"})
    assert login.status_code == 200
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert "chosen-secret" not in out and process.returncode == 0


def _up(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/tables", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_mistakes_end_in_one_sentence_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    port = free_port()
    busy = _start("--port", str(port), cwd=tmp_path)
    wait_until(lambda: busy.poll() is not None or _up(f"http://127.0.0.1:{port}"), timeout=60)
    try:
        cases = [["--port", str(port)],
                 ["--port", "0"],
                 ["--database-url", "mysql://x@localhost/db"],
                 ["--database-url", "not a url"],
                 ["--database-url", f"sqlite:///{tmp_path}/a-file/x.sqlite3"],
                 ["--betting-seconds", "0"],
                 ["--closed-seconds", "-1"],
                 ["--bet-linger-ms", "500"]]
        short = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": "abc"}
        runs = [(args, None) for args in cases] + [(["--port", str(free_port())], short)]
        for args, env in runs:
            result = subprocess.run([*COMMAND, "serve", *args], cwd=tmp_path, capture_output=True,
                                    text=True, timeout=60, env=env)
            assert result.returncode == 2, (args, result.stderr)
            assert result.stderr.startswith("puntobanco: ") and result.stderr.count("\n") == 1, \
                (args, result.stderr)
    finally:
        busy.send_signal(signal.SIGINT)
        busy.communicate(timeout=60)


def test_issue8_a_second_process_on_one_sqlite_file_is_refused_in_one_sentence(
        tmp_path: Path) -> None:
    port = free_port()
    first = _start("--port", str(port), cwd=tmp_path)
    try:
        wait_until(lambda: first.poll() is not None or _up(f"http://127.0.0.1:{port}"),
                   timeout=60)
        second = _start("--port", str(free_port()), cwd=tmp_path)
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2, (out, err)
        assert "already uses the SQLite database" in err and "PostgreSQL" in err, err
        assert "Traceback" not in err
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)


def test_operator_password_on_an_existing_database_is_said_and_can_be_reset(
        tmp_path: Path) -> None:
    """Issue 12: PUNTOBANCO_OPERATOR_PASSWORD on a database that has its operator was silently
    ignored; serve now says so, and `puntobanco operator-password` resets it (running or not)."""
    first = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": "first-secret"}
    second = {**os.environ, "PUNTOBANCO_OPERATOR_PASSWORD": "second-secret"}
    no_operator = subprocess.run([*COMMAND, "operator-password", "--generate"], cwd=tmp_path,
                                 capture_output=True, text=True, timeout=60)
    assert no_operator.returncode == 2 and "There is no database at" in no_operator.stderr
    assert list(tmp_path.iterdir()) == []  # issue 20: no database created and migrated for it
    port = free_port()
    _first_lines(_start("--port", str(port), cwd=tmp_path, env=first), f"http://127.0.0.1:{port}")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    process = _start("--port", str(port), cwd=tmp_path, env=second)
    try:
        wait_until(lambda: process.poll() is not None or _up(url), timeout=60)
        signed_in = httpx.post(f"{url}/api/login", json={"username": "operator",
                                                         "password": "first-secret"})
        assert signed_in.status_code == 200  # the variable was not applied
        reset = subprocess.run([*COMMAND, "operator-password"], cwd=tmp_path, env=second,
                               capture_output=True, text=True, timeout=60)
        assert reset.returncode == 0 and "password is reset" in reset.stdout, reset.stderr
        again = httpx.post(f"{url}/api/login", json={"username": "operator",
                                                      "password": "second-secret"})
        assert again.status_code == 200
        token = signed_in.json()["token"]
        me = httpx.get(f"{url}/api/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 401  # signed out everywhere
        # issue 20: the reset is in the audit log, as the operator's actions on the page are
        audit = httpx.get(f"{url}/api/audit?action=operator-password",
                          headers={"Authorization": f"Bearer {again.json()['token']}"})
        assert audit.status_code == 200, audit.text
        [entry] = audit.json()
        assert (entry["operator"], entry["target_kind"], entry["target_name"]) == (
            "operator", "player", "operator")
        assert entry["before"] == {"sessions": 1}
        assert entry["after"] == {"sessions": 0, "by": "puntobanco operator-password"}
    finally:
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    assert "PUNTOBANCO_OPERATOR_PASSWORD is not applied" in out
    assert "puntobanco operator-password" in out


def test_serve_help_has_no_hard_line_break_and_gives_the_betting_window_s_range() -> None:
    result = subprocess.run([*COMMAND, "serve", "--help"], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert ("whose password comes from PUNTOBANCO_OPERATOR_PASSWORD or is generated and printed "
            "once.") in text
    assert "Betting window of every table in seconds, 1 to 600" in text
    wide = [line for line in result.stdout.splitlines() if "PUNTOBANCO_OPERATOR_PASSWORD" in line]
    assert len(wide) == 1  # one paragraph: one line on a wide terminal
