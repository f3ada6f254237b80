"""Calls against a real counterfactd and todosd: intents that change the state, the
daemon's refusals as typed errors, batches, history, time travel, events, roles."""

import json
import os
import shutil
import subprocess
import unittest

import arbor_client
from arbor_client import Client, intent_request

from daemons import WAIT_SECONDS, Daemon, eventually

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(arbor_client.__file__)))


class CounterfactCallTests(unittest.TestCase):
    """One counterfactd for the class; each test adds the rows it uses."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon("counterfactd", ["--max-line-bytes", "65536"])
        cls.daemon.start()
        cls.client = Client(cls.daemon.socket, timeout=WAIT_SECONDS)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.daemon.__exit__(None, None, None)

    def add_row(self):
        """Adds a counter row and returns its index."""
        self.client.intent("/", "addButtonTapped")
        return len(self.client.get("/counters").value) - 1

    def test_a_call_and_an_intent_change_the_state(self):
        before = self.client.get("").revision
        added = self.client.call("intent.call", {"intent": "addButtonTapped"})
        self.assertEqual(added["revision"], before + 1)
        row = len(self.client.get("/counters").value) - 1
        reply = self.client.intent(f"/counters/{row}/counter", "incrementTapped")
        self.assertIsInstance(reply, arbor_client.IntentResult)
        self.assertEqual(reply.revision, before + 2)
        self.assertIsNone(reply.result)
        state = self.client.get(f"/counters/{row}/counter/count")
        self.assertEqual((state.revision, state.value), (before + 2, 1))
        # By id, and the root written as arborctl writes it.
        row_id = self.client.get(f"/counters/{row}/id").value
        counter_id = self.client.get(f"/counters/{row}/counter/id").value
        self.client.intent({"id": counter_id}, "incrementTapped")
        self.assertEqual(self.client.get(f"/counters/{row}/counter/count").value, 2)
        rows = len(self.client.get("/").value["counters"])
        self.client.intent("/", "removeButtonTapped", id=row_id)
        self.assertEqual(len(self.client.get("/counters").value), rows - 1)

    def test_a_wrong_parameter_is_an_invalid_parameter_with_its_name_and_code(self):
        row = self.add_row()
        with self.assertRaises(arbor_client.InvalidParameter) as intent_parameter:
            self.client.intent(f"/counters/{row}/counter", "incrementTapped", by=2)
        error = intent_parameter.exception
        self.assertEqual((error.name, error.code), ("org.arbor.InvalidParameter", 1003))
        self.assertEqual(error.data["parameter"], "by")
        self.assertIn("incrementTapped has no parameter 'by'", error.message)
        with self.assertRaises(arbor_client.InvalidParameter) as mistyped:
            self.client.intent("/", "removeButtonTapped", id=5)
        self.assertEqual((mistyped.exception.code, mistyped.exception.data["parameter"]), (1003, "id"))
        # A method's own parameter: the same name, with the code of Invalid params.
        with self.assertRaises(arbor_client.InvalidParams) as method_parameter:
            self.client.call("state.get", {"pth": "/counters"})
        self.assertIsInstance(method_parameter.exception, arbor_client.InvalidParameter)
        self.assertEqual((method_parameter.exception.name, method_parameter.exception.code),
                         ("org.arbor.InvalidParameter", -32602))

    def test_an_unknown_intent_target_path_and_method(self):
        row = self.add_row()
        with self.assertRaises(arbor_client.IntentNotFound) as unknown:
            self.client.intent(f"/counters/{row}/counter", "explode")
        self.assertEqual((unknown.exception.name, unknown.exception.code), ("org.arbor.IntentNotFound", 1002))
        self.assertIn("incrementTapped", unknown.exception.data["available"])
        self.assertEqual(unknown.exception.data["modelType"], "CounterModel")
        with self.assertRaises(arbor_client.TargetNotFound) as target:
            self.client.intent("/counters/9999/counter", "incrementTapped")
        self.assertEqual(target.exception.code, 1001)
        with self.assertRaises(arbor_client.PathNotFound) as path:
            self.client.get("/nothing/here")
        self.assertEqual((path.exception.code, path.exception.data["path"]), (1007, "/nothing/here"))
        with self.assertRaises(arbor_client.MethodNotFound) as method:
            self.client.call("state.gett")
        self.assertIsNone(method.exception.name)
        self.assertIn("state.get", method.exception.data["available"])

    def test_a_batch_is_one_line_with_each_outcome_in_order(self):
        row = self.add_row()
        counter = f"/counters/{row}/counter"
        outcomes = self.client.batch([
            intent_request(counter, "incrementTapped"),
            intent_request(counter, "incrementTapped"),
            ("state.get", {"path": counter + "/count"}),
            intent_request(counter, "explode"),
            ("daemon.status",),
        ])
        self.assertEqual(len(outcomes), 5)
        self.assertEqual(outcomes[1]["revision"], outcomes[0]["revision"] + 1)
        self.assertEqual(outcomes[2], {"revision": outcomes[1]["revision"], "value": 2})
        self.assertIsInstance(outcomes[3], arbor_client.IntentNotFound)
        self.assertEqual(outcomes[4]["name"], "counterfactd")
        with self.assertRaises(arbor_client.IntentNotFound):
            self.client.batch([intent_request(counter, "explode")], raise_errors=True)
        self.assertEqual(self.client.batch([]), [])
        # A watch cannot be batched: the daemon says so for that member only.
        refused = self.client.batch([("state.watch",), ("state.get", {"path": counter + "/count"})])
        self.assertIsInstance(refused[0], arbor_client.InvalidRequest)
        self.assertEqual(refused[1]["value"], 2)

    def test_history_changes_and_time_travel(self):
        row = self.add_row()
        counter = f"/counters/{row}/counter"
        start = self.client.get("").revision
        revisions = [self.client.intent(counter, "incrementTapped").revision for _ in range(5)]
        page = self.client.history(since=start, limit=2)
        self.assertEqual([change.revision for change in page.changes], revisions[:2])
        self.assertEqual(page.next, revisions[1])
        self.assertEqual({(change.intent, change.target) for change in page.changes}, {("incrementTapped", counter)})
        self.assertEqual(page.changes[0].patch, [{"op": "replace", "path": counter + "/count", "value": 1}])
        every = list(self.client.changes(since=start, page_size=2))
        self.assertEqual([change.revision for change in every], revisions)
        then = self.client.at(revisions[2], counter + "/count")
        self.assertEqual((then.revision, then.value), (revisions[2], 3))
        self.assertRegex(then.time, r"^\d{4}-\d\d-\d\dT")
        with self.assertRaises(arbor_client.InvalidParameter):
            self.client.at(revisions[-1] + 1000)

    def test_events_of_a_row_removed_by_its_parent(self):
        row = self.add_row()
        row_id = self.client.get(f"/counters/{row}/id").value
        with self.client.events(types=["CounterRowModel.Event"]) as events:
            self.client.intent(f"/counters/{row}", "removeButtonTapped")
            event = events.next(timeout=WAIT_SECONDS)
        self.assertEqual(event.type, "CounterRowModel.Event")
        self.assertEqual((event.source_id, event.source_path, event.source_type), (row_id, f"/counters/{row}", "CounterRowModel"))
        self.assertIn("removeTapped", event.event)
        eventually("the parent to remove the row",
                   lambda: row_id not in [r["id"] for r in self.client.get("/counters").value])

    def test_a_line_over_the_limit_is_refused_to_its_caller(self):
        with self.assertRaises(arbor_client.LineTooLong) as too_long:
            self.client.intent("/", "removeButtonTapped", id="x" * 70000)
        self.assertEqual((too_long.exception.code, too_long.exception.data["limit"]), (1010, 65536))
        # The daemon closed that connection; the next call opens another.
        self.assertGreaterEqual(self.client.get("").revision, 0)

    def test_a_closed_daemon_is_a_cannot_connect(self):
        with self.assertRaises(arbor_client.CannotConnect) as refused:
            Client(os.path.join(self.daemon.directory, "none.sock")).get("")
        self.assertIn("none.sock", str(refused.exception))


class TodosCallTests(unittest.TestCase):
    def test_intents_with_parameters_results_and_undo(self):
        with Daemon("todosd") as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            milk = client.intent("/", "addItem", title="Milk")
            self.assertRegex(milk.result, "^[0-9a-f]{16}$")
            client.intent("/", "addItem", title="Eggs")
            client.intent("/items/1", "toggle")
            self.assertEqual(client.intent("/", "summary").result["remaining"], 1)
            with self.assertRaises(arbor_client.InvalidParameter) as mistyped:
                client.intent("/items/0", "rename", to=5)
            self.assertEqual((mistyped.exception.code, mistyped.exception.data["parameter"]), (1003, "to"))
            with self.assertRaises(arbor_client.InvalidParameter) as not_a_case:
                client.intent("/", "setSortOrder", to="random")
            self.assertIn("created", not_a_case.exception.message)
            self.assertTrue(client.undo()["canRedo"])
            self.assertEqual(client.intent("/", "summary").result["remaining"], 2)
            client.redo()
            while True:
                try:
                    client.undo()
                except arbor_client.NothingToUndo as error:
                    self.assertEqual(error.code, 1014)
                    break
            self.assertEqual(client.get("/items").value, [])


@unittest.skipUnless(os.getuid() == 0 and shutil.which("setpriv") and os.access("/usr/bin/python3", os.X_OK),
                     "runs a client as uid 65534: needs root, setpriv and /usr/bin/python3")
class ReaderRoleTests(unittest.TestCase):
    """A reader (``--readers uid:65534``) reads but is refused an intent: the client runs
    as uid 65534 with ``setpriv``, in the daemon's group so that the socket's mode lets
    it connect (as Tests/ArborDaemonTests/Access/PeerCredentialTests.swift does)."""

    SCRIPT = """
import json, sys, arbor_client
client = arbor_client.Client(sys.argv[1], timeout=10)
out = {"revision": client.get("").revision}
try:
    client.intent("/", "addButtonTapped")
except arbor_client.PermissionDenied as error:
    out["refused"] = [type(error).__name__, error.name, error.code, error.data]
print(json.dumps(out))
"""

    def test_a_reader_is_refused_an_intent(self):
        with Daemon("counterfactd", ["--readers", "uid:65534"]) as daemon:
            run = subprocess.run(
                ["setpriv", "--reuid=65534", f"--regid={os.getgid()}", "--clear-groups",
                 "/usr/bin/python3", "-c", self.SCRIPT, daemon.socket],
                env={"PYTHONPATH": PACKAGE_PARENT, "PATH": "/usr/bin:/bin"},
                capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 0, run.stderr)
            out = json.loads(run.stdout)
            self.assertEqual(out["revision"], 0)
            self.assertEqual(out["refused"][:3], ["PermissionDenied", "org.arbor.PermissionDenied", 1005])
            self.assertEqual((out["refused"][3]["required"], out["refused"][3]["role"]), ("operator", "reader"))
            with Client(daemon.socket, timeout=WAIT_SECONDS) as owner:
                self.assertEqual(owner.get("").revision, 0, "the refused intent did not run")


if __name__ == "__main__":
    unittest.main()
