"""Watches against a real counterfactd: every revision's patch applied, resuming across
a kill -9 and a restart, a resync when the daemon lost what the watch saw, and a
thousand updates through the iterator."""

import time
import unittest

import arbor_client
from arbor_client import Client, Reconnect, intent_request

from daemons import WAIT_SECONDS, Daemon, eventually

INCREMENT = ("/counters/0/counter", "incrementTapped")


class WatchTests(unittest.TestCase):
    def test_a_watch_applies_each_revisions_patch(self):
        with Daemon("counterfactd") as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            root = client.watch()
            rows = client.watch("/counters")
            self.assertEqual(root.next(timeout=WAIT_SECONDS).kind, "initial")
            first = rows.next(timeout=WAIT_SECONDS)
            self.assertEqual((first.revision, first.value, first.kind), (0, [], "initial"))
            # Rows added, counted up and down, one removed by its id, one by its own
            # intent (its parent removes it on the event): adds, replaces, removes.
            for _ in range(3):
                client.intent("/", "addButtonTapped")
            client.intent("/counters/1/counter", "incrementTapped")
            client.intent("/counters/2/counter", "decrementTapped")
            client.intent("/", "removeButtonTapped", id=client.get("/counters/0/id").value)
            client.intent("/counters/0", "removeButtonTapped")
            eventually("the row to go", lambda: len(client.get("/counters").value) == 1)
            last = client.intent("/counters/0/counter", "incrementTapped").revision

            ops = set()
            update = first
            while update.revision < last:
                update = rows.next(timeout=WAIT_SECONDS)
                self.assertEqual(update.kind, "patch")
                ops.update(operation["op"] for operation in update.patch)
                then = client.at(update.revision, "/counters")
                self.assertEqual(update.value, then.value, f"revision {update.revision} is the journal's")
            self.assertEqual(ops, {"add", "replace", "remove"})
            self.assertEqual(update.value, client.get("/counters").value)
            self.assertEqual(rows.value, update.value)
            # The root saw every revision, consecutively.
            seen = [root.next(timeout=WAIT_SECONDS).revision for _ in range(last)]
            self.assertEqual(seen, list(range(1, last + 1)))
            self.assertEqual(root.value, client.get("").value)
            root.close()
            rows.close()
            self.assertEqual(list(rows), [], "a closed watch ends")

    def test_a_watch_from_since_replays_the_revisions_after_it(self):
        with Daemon("counterfactd") as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            client.intent("/", "addButtonTapped")
            for _ in range(4):
                client.intent(*INCREMENT)
            with client.watch("/counters/0/counter/count", since=2) as count:
                values = [(u.revision, u.value, u.kind) for u in (count.next(timeout=WAIT_SECONDS) for _ in range(4))]
            self.assertEqual(values, [(2, 1, "initial"), (3, 2, "patch"), (4, 3, "patch"), (5, 4, "patch")])

    def test_a_watch_resumes_across_a_kill_and_a_restart(self):
        """Under --fsync always nothing committed is lost: the watch resumes from the last
        revision it handed out, with no revision missed or repeated, and its value is the
        state's."""
        events = []
        with Daemon("counterfactd", ["--fsync", "always"]) as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            watch = client.watch(reconnect=Reconnect(initial_delay=0.02, give_up_after=60),
                                 on_connection=lambda event, detail: events.append((event, detail)))
            self.assertEqual(watch.next(timeout=WAIT_SECONDS).revision, 0)
            client.intent("/", "addButtonTapped")
            for _ in range(5):
                client.intent(*INCREMENT)
            self.assertEqual([watch.next(timeout=WAIT_SECONDS).revision for _ in range(6)], [1, 2, 3, 4, 5, 6])

            daemon.kill()
            daemon.start()  # the same socket and state directory
            # The client's own connection went with the daemon: the next call opens another.
            for _ in range(4):
                client.intent(*INCREMENT)
            for revision in range(7, 11):
                update = watch.next(timeout=WAIT_SECONDS)
                self.assertEqual(update.revision, revision, "resumed with no gap and no repeat")
                self.assertEqual(update.kind, "patch", "a resume, not a resync")
            state = client.get("")
            self.assertEqual((watch.revision, watch.value), (state.revision, state.value))
            self.assertEqual(state.value["counters"][0]["counter"]["count"], 9)
            self.assertEqual([event for event, _ in events], ["subscribed", "lost", "subscribed"])
            self.assertEqual(events[-1][1], 6, "resumed from the last revision seen")
            watch.close()

    def test_a_watch_whose_revisions_the_daemon_lost_gets_a_resync(self):
        """Killed under --fsync off with a long window, the daemon forgets the last
        revisions and numbers new ones the same: the watch notices and resyncs."""
        with Daemon("counterfactd", ["--fsync", "off", "--fsync-window", "60000"]) as daemon, \
                Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            watch = client.watch("/counters", reconnect=Reconnect(initial_delay=0.02))
            watch.next(timeout=WAIT_SECONDS)
            for _ in range(3):
                client.intent("/", "addButtonTapped")
            self.assertEqual([watch.next(timeout=WAIT_SECONDS).revision for _ in range(3)], [1, 2, 3])
            daemon.kill()
            daemon.start()
            revision = client.get("").revision
            self.assertLess(revision, 3, f"the daemon kept what it had not written:\n{daemon.log()}")
            # New revisions under the numbers the watch saw, with other values.
            while revision < 3:
                revision = client.intent("/", "addButtonTapped").revision
            client.intent("/counters/0/counter", "decrementTapped")
            state = client.get("/counters")
            update = watch.next(timeout=WAIT_SECONDS)
            self.assertEqual(update.kind, "resync")
            while watch.revision < state.revision:
                watch.next(timeout=WAIT_SECONDS)
            self.assertEqual((watch.revision, watch.value), (state.revision, state.value))
            watch.close()

    def test_a_thousand_updates_through_the_iterator(self):
        """A batch of 1,000 intents makes 1,000 revisions; the root watch hands each out,
        in order, its patch applied. The iterator's rate is timed from the batch's reply
        (every revision committed) to the last update; the whole, from the batch's
        sending, is printed too (a debug daemon on a busy machine bounds that one)."""
        count = 1000
        with Daemon("counterfactd", ["--watch-queue", "100000"]) as daemon, \
                Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            client.intent("/", "addButtonTapped")
            watch = client.watch()
            start_revision = watch.next(timeout=WAIT_SECONDS).revision
            began = time.monotonic()
            replies = client.batch([intent_request(*INCREMENT)] * count, raise_errors=True)
            committed = time.monotonic()
            revisions = []
            for _ in range(count):
                update = watch.next(timeout=WAIT_SECONDS)
                self.assertEqual(update.kind, "patch")
                revisions.append(update.revision)
            ended = time.monotonic()
            rate = count / (ended - committed)
            print(f"\n    {count} watch updates through the iterator in {ended - committed:.3f} s: {rate:,.0f} updates/s; "
                  f"from the batch's sending {ended - began:.3f} s, {count / (ended - began):,.0f} updates/s "
                  f"(the daemon committed them in {committed - began:.3f} s)", flush=True)
            self.assertEqual(revisions, list(range(start_revision + 1, start_revision + count + 1)), "all, in order")
            self.assertEqual(replies[-1]["revision"], revisions[-1])
            self.assertEqual(watch.value, client.get("").value)
            self.assertEqual(watch.value["counters"][0]["counter"]["count"], count)
            self.assertGreater(rate, 1000, "the iterator hands out 1,000 updates in less than a second")
            watch.close()

    def test_a_watch_that_falls_behind_takes_the_daemons_resync(self):
        """With --watch-queue 10, a watch not read while 5,000 revisions are committed
        gets resyncs (``state.changed`` with ``resync: true``, the whole value) in place of
        the patches the daemon dropped."""
        with Daemon("counterfactd", ["--watch-queue", "10"]) as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            client.intent("/", "addButtonTapped")
            watch = client.watch()
            watch.next(timeout=WAIT_SECONDS)
            last = client.batch([intent_request(*INCREMENT)] * 5000, raise_errors=True)[-1]["revision"]
            kinds = set()
            while watch.revision < last:
                kinds.add(watch.next(timeout=WAIT_SECONDS).kind)
            self.assertIn("resync", kinds)
            self.assertEqual(watch.value, client.get("").value)
            watch.close()

    def test_a_watch_without_reconnect_ends_when_the_daemon_goes(self):
        with Daemon("counterfactd") as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            watch = client.watch(reconnect=False)
            watch.next(timeout=WAIT_SECONDS)
            daemon.kill()
            with self.assertRaises(arbor_client.ConnectionClosed):
                watch.next(timeout=WAIT_SECONDS)
            self.assertEqual(list(watch), [])
        with self.assertRaises(arbor_client.CannotConnect):
            Client(daemon.socket).watch()


if __name__ == "__main__":
    unittest.main()
