"""One client of ``tooldeck serve --transport http`` cannot use the server up against the others.

Each attack runs against a real server (uvicorn on 127.0.0.1, in a thread)
from one loopback address while a victim, a real MCP client from another
address, connects and calls a tool; the victim must be served. The figures
of the attacks are those measured on the server before the limits (see the
notes of issue 20), scaled down where the limit makes the rest redundant.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import time

import pytest

from .serve_limits_harness import HEADERS, INIT, client, mcp_session, serving, text_of

VICTIM = "127.0.0.2"
ATTACKER = "127.0.0.3"


async def victim_calls(url: str) -> None:
    async with mcp_session(url, VICTIM) as session:
        result = await session.call_tool("add", {"a": 2, "b": 3})
        assert not result.is_error, text_of(result)
        assert "5" in text_of(result)


# ---------------------------------------------------------------- bodies
async def test_a_body_over_max_body_gets_413_with_or_without_content_length():
    with serving(max_body=1024) as running:
        async with client(ATTACKER) as http:
            big = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "pad": "' + b"x" * 4096 + b'"}'
            declared = await http.post(running.url, content=big, headers=HEADERS)
            assert declared.status_code == 413

            async def chunks():  # no Content-Length: Transfer-Encoding chunked
                for _ in range(8):
                    yield b"x" * 512

            chunked = await http.post(running.url, content=chunks(), headers=HEADERS)
            assert chunked.status_code == 413
        await victim_calls(running.url)


async def test_a_json_rpc_batch_is_refused_so_each_call_is_one_request():
    with serving() as running:
        async with client(ATTACKER) as http:
            batch = json.dumps([INIT, {**INIT, "id": 2}])
            answer = await http.post(running.url, content=batch, headers=HEADERS)
            assert answer.status_code == 400


def test_a_body_slower_than_body_timeout_gets_408_and_the_connection_closes():
    with serving(body_timeout=0.5) as running:
        port = int(running.url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), source_address=(ATTACKER, 0)) as sock:
            sock.settimeout(10)
            head = (
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"
            )
            sock.sendall(head.encode())
            answer = _read_all(sock)
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"connection: close" in answer.lower()


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


# ------------------------------------------------------------------ rate
async def test_a_flood_over_the_rate_limit_gets_429_with_retry_after_and_others_are_served():
    with serving(rate_limit=5.0) as running:
        async with client(ATTACKER) as http:
            answers = [
                await http.post(running.url, content=json.dumps(INIT), headers=HEADERS)
                for _ in range(30)
            ]
        refused = [a for a in answers if a.status_code == 429]
        assert len(refused) >= 15  # a burst of 10 passes, the rest cannot refill in time
        assert all(int(a.headers["retry-after"]) >= 1 for a in refused)
        assert refused[0].json()["error"]["message"]
        await victim_calls(running.url)


@pytest.mark.slow
async def test_ten_thousand_initialize_requests_from_one_client_lock_nobody_out():
    with serving() as running:
        port = int(running.url.split(":")[2].split("/")[0])
        flood = asyncio.create_task(asyncio.to_thread(_pipelined_flood, port, 20, 500))
        await victim_calls(running.url)  # while the flood runs
        statuses = await flood
        assert len(statuses) == 10_000
        assert statuses.count(429) > 9_000
        assert running.sessions() <= 32
        await victim_calls(running.url)


def _pipelined_flood(port: int, connections: int, each: int) -> list[int]:
    """``connections`` x ``each`` initialize requests, pipelined; their statuses."""
    body = json.dumps(INIT).encode()
    request = (
        b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Accept: application/json, text/event-stream\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    sockets = [
        socket.create_connection(("127.0.0.1", port), source_address=(ATTACKER, 0))
        for _ in range(connections)
    ]
    statuses: list[int] = []
    try:
        for sock in sockets:
            sock.settimeout(20)
            sock.sendall(request * each)
        for sock in sockets:
            data = b""
            while len(found := re.findall(rb"HTTP/1.1 (\d{3}) ", data)) < each:
                chunk = sock.recv(1 << 20)
                assert chunk, f"closed after {len(found)} answers"
                data += chunk
            statuses += [int(status) for status in found]
    finally:
        for sock in sockets:
            sock.close()
    return statuses


# ------------------------------------------------------------- sessions
@pytest.mark.slow
async def test_two_thousand_abandoned_sessions_stay_at_the_clients_cap():
    # ~30 s on a 2-core machine: opening a session costs the mcp package ~16 ms.
    with serving(rate_limit=None, max_sessions_per_client=10, max_sessions=50) as running:
        port = int(running.url.split(":")[2].split("/")[0])
        statuses = await asyncio.to_thread(_pipelined_flood, port, 4, 500)
        assert statuses == [200] * 2_000  # every one opened a session...
        deadline = time.monotonic() + 20
        while running.sessions() > 10:  # ...and all but the last 10 were ended
            assert time.monotonic() < deadline, f"{running.sessions()} sessions left open"
            await asyncio.sleep(0.05)
        await victim_calls(running.url)


async def test_at_the_session_cap_the_biggest_holder_gives_way():
    with serving(rate_limit=None, max_sessions_per_client=8, max_sessions=10) as running:
        async with client(ATTACKER) as http:
            for _ in range(8):
                await http.post(running.url, content=json.dumps(INIT), headers=HEADERS)
        async with client("127.0.0.4") as http:
            await http.post(running.url, content=json.dumps(INIT), headers=HEADERS)
        assert running.sessions() == 9
        async with mcp_session(running.url, VICTIM) as session:  # the 10th: fits
            assert running.sessions() == 10
            async with client("127.0.0.5") as http:  # the 11th: the attacker gives one up
                answer = await http.post(running.url, content=json.dumps(INIT), headers=HEADERS)
                assert answer.status_code == 200
            result = await session.call_tool("add", {"a": 1, "b": 1})
            assert not result.is_error


async def test_an_idle_session_is_ended_by_the_sweeper():
    with serving(session_idle_timeout=0.3) as running:
        async with client(ATTACKER) as http:
            answer = await http.post(running.url, content=json.dumps(INIT), headers=HEADERS)
            session_id = answer.headers["mcp-session-id"]
            deadline = time.monotonic() + 20
            while running.sessions():
                assert time.monotonic() < deadline, "the idle session was never ended"
                await asyncio.sleep(0.05)
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            headers = {**HEADERS, "mcp-session-id": session_id}
            again = await http.post(running.url, content=json.dumps(ping), headers=headers)
            assert again.status_code == 404


# ---------------------------------------------------------- connections
@pytest.mark.slow
async def test_a_thousand_half_sent_requests_starve_nobody():
    with serving(max_connections_per_client=50, header_timeout=2.0) as running:
        port = int(running.url.split(":")[2].split("/")[0])
        sockets = []
        for _ in range(1_000):
            sock = socket.socket()
            sock.setblocking(False)
            sock.bind((ATTACKER, 0))
            sock.connect_ex(("127.0.0.1", port))
            sockets.append(sock)
        await asyncio.sleep(0.2)
        for sock in sockets:
            with contextlib.suppress(OSError):  # closed already: over the connection cap
                sock.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        try:
            await victim_calls(running.url)
            # The header timeout closes the ones the cap let in.
            deadline = time.monotonic() + 20
            while sum(_closed(sock) for sock in sockets) < len(sockets):
                assert time.monotonic() < deadline, "half-sent connections were never closed"
                await asyncio.sleep(0.1)
        finally:
            for sock in sockets:
                sock.close()


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


# --------------------------------------------------------------- workers
@pytest.mark.slow
async def test_forty_slow_calls_from_one_client_do_not_fail_another_clients_call():
    with serving(max_concurrent=8) as running:
        async with mcp_session(running.url, ATTACKER) as attacker:

            async def slow_call() -> object:
                try:
                    return await attacker.call_tool("slow", {"seconds": 3})
                except Exception as exc:  # a 429 fails the client's request
                    return exc

            flood = [asyncio.create_task(slow_call()) for _ in range(40)]
            await asyncio.sleep(0.5)
            await victim_calls(running.url)
            outcomes = await asyncio.gather(*flood)
        served = [o for o in outcomes if not isinstance(o, Exception) and not o.is_error]
        assert 1 <= len(served) <= 8
