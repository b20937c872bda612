"""Fair limits of the web server (clients, rates, turns at thinking)."""

from __future__ import annotations

import threading
import time

import pytest

from sixtysix_env.play.limits import LOOPBACK, Busy, FairThinking, client_key
from sixtysix_env.play.store import GameStore, TooManyGames


@pytest.mark.parametrize(
    "address, key",
    [
        ("203.0.113.7", "203.0.113.7"),
        ("127.0.0.1", LOOPBACK),
        ("127.3.2.1", LOOPBACK),
        ("::1", LOOPBACK),
        ("::ffff:127.0.0.1", LOOPBACK),
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::9", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::9", "2001:db8:1:3::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("", ""),
        (None, ""),
    ],
)
def test_a_client_is_an_ipv4_address_an_ipv6_64_or_loopback(address, key):
    assert client_key(address) == key


def test_many_addresses_of_one_client_share_its_limits():
    """520 matches from 26 loopback addresses evicted an idle player's match in 6 s."""
    store = GameStore(per_minute=30, clock=lambda: 0.0)
    for i in range(30):
        store.admit(client_key(f"127.0.0.{i % 26 + 1}"))
    with pytest.raises(TooManyGames):
        store.admit(client_key("127.0.0.99"))
    for i in range(30):
        store.admit(client_key(f"2001:db8::{i:x}"))  # one /64
    with pytest.raises(TooManyGames):
        store.admit(client_key("2001:db8::ffff"))
    store.admit(client_key("2001:db8:0:1::1"))  # another /64 is another client


def test_all_clients_together_have_a_rate_too():
    now = [0.0]
    store = GameStore(per_minute=5, all_per_minute=20, clock=lambda: now[0])
    for i in range(20):
        store.admit(f"10.0.0.{i}")
    with pytest.raises(TooManyGames) as e:
        store.admit("10.0.1.1")
    assert e.value.everyone
    now[0] += 60
    store.admit("10.0.1.1")


def test_the_rate_table_forgets_quiet_clients_without_scanning():
    """Past 2,000 clients each new match scanned the rate table under the lock. Now a
    client that starts a match moves to the back, and the quiet ones leave from the front."""
    now = [0.0]
    store = GameStore(per_minute=5, all_per_minute=10**9, clock=lambda: now[0])
    for i in range(16_000):
        store.admit(f"c{i}")
    assert len(store._started) == 16_000
    now[0] += 30
    store.admit("c5")  # active: to the back
    now[0] += 31
    store.admit("new")  # the 15,999 quiet for a minute are forgotten; c5 is not
    assert list(store._started) == ["c5", "new"]


def _turns(thinking, requests, hold_s):
    """Run ``requests`` (client names) each in its own thread at once; the order they
    got their turns."""
    order, lock = [], threading.Lock()
    gate = threading.Barrier(len(requests))

    def request(client):
        gate.wait()
        with thinking.turn(client):
            with lock:
                order.append(client)
            time.sleep(hold_s)

    threads = []
    for client in requests:
        threads.append(threading.Thread(target=request, args=(client,)))
        threads[-1].start()
        time.sleep(0.01)  # arrival order
    for t in threads:
        t.join()
    return order


def test_one_request_per_client_thinks_and_clients_take_turns():
    """Attackers on 6 addresses pushed a victim's move from 6 ms to 19 s: the slots were
    one semaphore in arrival order. Now each client has one turn at a time, in a round."""
    thinking = FairThinking(slots=1, wait_s=30)
    # Three attackers send four requests each, then the victim one.
    requests = [a for a in ("a1", "a2", "a3") for _ in range(4)] + ["victim"]
    order = _turns(thinking, requests, hold_s=0.02)
    # The first attacker request holds the slot; then each client in turn: the victim's
    # comes in the first round, not after the twelve attacker requests.
    assert order.index("victim") <= 4, order
    assert sorted(order) == sorted(requests)


def test_a_client_never_holds_two_slots():
    thinking = FairThinking(slots=4, wait_s=30)
    busy, peak, lock = [0], [0], threading.Lock()

    def request():
        with thinking.turn("one"):
            with lock:
                busy[0] += 1
                peak[0] = max(peak[0], busy[0])
            time.sleep(0.01)
            with lock:
                busy[0] -= 1

    threads = [threading.Thread(target=request) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == 1 and thinking.free == 4


def test_no_turn_within_the_wait_is_busy_and_leaves_nothing_behind():
    thinking = FairThinking(slots=1, wait_s=0.05)
    with thinking.turn("holder"):
        with pytest.raises(Busy), thinking.turn("late"):
            pass  # pragma: no cover
        assert thinking.free == 0
    assert thinking.free == 1 and not thinking._round
    with thinking.turn("late"):
        pass


# -- the caps for all clients keep a share for clients without a match ------------------


def test_clients_with_matches_leave_the_reserved_share_of_the_store_to_newcomers():
    """25 clients at 20 matches each filled the store: then every new client got 503.
    Now a client that holds a match may fill the store only up to its reserved share."""
    from sixtysix_env.play.session import GameSession
    from sixtysix_env.play.store import StoreFull

    store = GameStore(max_games=10, per_client=2, protected_s=600, clock=lambda: 0.0)
    session = GameSession("random", seed=0)
    for i in range(4):  # four busy clients, two matches each: 8 of 10
        store.add(session, f"busy{i}")
        store.add(session, f"busy{i}")
    store.add(session, "busy0")  # at its own cap a client replaces its own oldest: no growth
    assert len(store) == 8
    store.add(session, "busy4")  # a client without a match may use the reserve ...
    with pytest.raises(StoreFull):
        store.add(session, "busy4")  # ... but not once it holds one
    store.add(session, "newcomer")
    assert len(store) == 10
    with pytest.raises(StoreFull):
        store.add(session, "newcomer2")  # all in play: now the store is full for everyone
    assert store.reserved_games == 2  # a fifth


def test_clients_with_matches_leave_the_reserved_share_of_the_rate_to_newcomers():
    """20 clients at 30 new matches a minute used up the rate for all: every new client got
    429 for the minute. Now the rate's reserved share is for clients that hold no match."""
    from sixtysix_env.play.session import GameSession

    store = GameStore(per_minute=4, all_per_minute=10, clock=lambda: 0.0)
    session = GameSession("random", seed=0)
    for client in ("a", "b"):
        for _ in range(4):
            store.admit(client)
            store.add(session, client)
    store.add(session, "c")  # c holds a match
    with pytest.raises(TooManyGames) as e:
        store.admit("c")
    assert e.value.everyone  # 8 of 10: the rest is reserved
    store.admit("newcomer1")
    store.admit("newcomer2")
    with pytest.raises(TooManyGames) as e:
        store.admit("newcomer3")
    assert e.value.everyone and store.reserved_starts == 2


def test_the_reserved_share_is_checked():
    with pytest.raises(ValueError, match="reserved_share must be from 0 to below 1"):
        GameStore(reserved_share=1.0)
    assert GameStore(max_games=500, reserved_share=0).reserved_games == 0
    assert GameStore().reserved_games == 100 and GameStore().reserved_starts == 120


# -- the trusted proxy is one address -----------------------------------------------------


@pytest.mark.parametrize(
    "text, address",
    [("127.0.0.1", "127.0.0.1"), (" ::1 ", "::1"), ("2001:DB8:0::1", "2001:db8::1"),
     ("::ffff:192.0.2.1", "192.0.2.1")],
)
def test_a_trusted_proxy_is_one_address_as_the_server_sees_it(text, address):
    from sixtysix_env.play.limits import proxy_address

    assert proxy_address(text) == address


@pytest.mark.parametrize(
    "text, why",
    [("*", "would trust every sender"), ("192.0.2.0/24", "a range"), ("proxy.lan", "not an IP"),
     ("192.0.2.1, 192.0.2.2", "only one address"), ("[::1]", "without brackets"),
     ("", "must be one IP address"), (None, "must be one IP address")],
)
def test_anything_else_is_refused_saying_what_is_accepted(text, why):
    from sixtysix_env.play.limits import proxy_address

    with pytest.raises(ValueError) as e:
        proxy_address(text)
    assert why in str(e.value) and "one IP address, such as 127.0.0.1 or ::1" in str(e.value)
