"""AsyncClient against a real counterfactd: calls (several at once on one connection),
a watch, an event watch, and a watch that resumes across a kill -9."""

import asyncio
import unittest

import arbor_client
from arbor_client import AsyncClient, Reconnect, intent_request

from daemons import WAIT_SECONDS, Daemon


def run(coroutine):
    """Runs a test's coroutine with an overall deadline."""
    return asyncio.run(asyncio.wait_for(coroutine, 60))


class AsyncClientTests(unittest.TestCase):
    def test_calls_and_a_watch(self):
        async def body(daemon):
            async with AsyncClient(daemon.socket, timeout=WAIT_SECONDS) as client:
                added = await client.call("intent.call", {"intent": "addButtonTapped"})
                self.assertEqual(added["revision"], 1)
                async with client.watch("/counters/0/counter/count") as count:
                    first = await count.next(timeout=WAIT_SECONDS)
                    self.assertEqual((first.revision, first.value, first.kind), (1, 0, "initial"))
                    # Ten calls at once on the one connection, matched by id.
                    replies = await asyncio.gather(*(client.intent("/counters/0/counter", "incrementTapped") for _ in range(10)))
                    self.assertEqual(sorted(reply.revision for reply in replies), list(range(2, 12)))
                    updates = [await count.next(timeout=WAIT_SECONDS) for _ in range(10)]
                    self.assertEqual([update.value for update in updates], list(range(1, 11)))
                    self.assertEqual(updates[-1].patch, [{"op": "replace", "path": "", "value": 10}])
                    with self.assertRaises(arbor_client.Timeout):
                        await count.next(timeout=0.2)
                state = await client.get("/counters/0/counter/count")
                self.assertEqual((state.revision, state.value), (11, 10))
                with self.assertRaises(arbor_client.IntentNotFound) as unknown:
                    await client.intent("/counters/0/counter", "explode")
                self.assertEqual(unknown.exception.code, 1002)
                outcomes = await client.batch([intent_request("/counters/0/counter", "decrementTapped"), ("state.get", {"path": "/counters/0/counter/count"})])
                self.assertEqual(outcomes[1]["value"], 9)
                changes = [change async for change in client.changes(since=9, page_size=1)]
                self.assertEqual([change.revision for change in changes], [10, 11, 12])
                self.assertEqual((await client.at(5, "/counters/0/counter/count")).value, 4)

        with Daemon("counterfactd") as daemon:
            run(body(daemon))

    def test_an_event_watch_and_a_watch_across_a_restart(self):
        async def body(daemon):
            async with AsyncClient(daemon.socket, timeout=WAIT_SECONDS) as client:
                for _ in range(2):
                    await client.intent("/", "addButtonTapped")
                rows = client.watch("/counters", reconnect=Reconnect(initial_delay=0.02))
                await rows.start()
                self.assertEqual(len((await rows.next(timeout=WAIT_SECONDS)).value), 2)
                async with client.events(types=["CounterRowModel.Event"]) as events:
                    await client.intent("/counters/1", "removeButtonTapped")
                    event = await events.next(timeout=WAIT_SECONDS)
                self.assertEqual((event.source_path, event.type, event.event), ("/counters/1", "CounterRowModel.Event", {"removeTapped": {}}))
                while len((await rows.next(timeout=WAIT_SECONDS)).value) != 1:
                    pass  # the parent removes the row on the event

                daemon.kill()
                daemon.start()  # the same socket and state directory
                for _ in range(3):
                    await client.intent("/", "addButtonTapped")
                state = await client.get("/counters")
                while rows.revision < state.revision:
                    update = await rows.next(timeout=WAIT_SECONDS)
                    self.assertEqual(update.kind, "patch", "resumed, not resynced")
                self.assertEqual(rows.value, state.value)
                self.assertEqual(len(rows.value), 4)
                await rows.close()

        with Daemon("counterfactd", ["--fsync", "always"]) as daemon:
            run(body(daemon))


if __name__ == "__main__":
    unittest.main()
