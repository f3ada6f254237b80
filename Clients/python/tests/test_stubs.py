"""`python -m arbor_client stubs SOCKET` against real daemons: the module it prints
imports, names the intents with typed keyword parameters, and its methods call them."""

import importlib.util
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import arbor_client
from arbor_client import Client
from arbor_client.stubs import example_paths, generate

from daemons import WAIT_SECONDS, Daemon

PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(arbor_client.__file__)))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class StubsTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="arbor-py-stubs-")
        self.addCleanup(shutil.rmtree, self.directory, True)

    def stubs(self, socket, name):
        """Runs the generator as a script would, and imports what it printed."""
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGE_PARENT, os.environ.get("PYTHONPATH", "")]))
        run = subprocess.run([sys.executable, "-m", "arbor_client", "stubs", socket], capture_output=True, text=True,
                             timeout=60, env=environment)
        self.assertEqual(run.returncode, 0, run.stderr)
        path = os.path.join(self.directory, name + ".py")
        with open(path, "w", encoding="utf-8") as file:
            file.write(run.stdout)
        return load(path, name)

    def test_counterfactd_stubs_name_its_intents_and_call_them(self):
        with Daemon("counterfactd") as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            mytree = self.stubs(daemon.socket, "mytree")
            self.assertEqual((mytree.DAEMON, mytree.ROOT), ("counterfactd", "AppModel"))
            self.assertIn("incrementTapped", mytree.CounterModel.INTENTS)
            self.assertIn("Calls CounterModel.incrementTapped", mytree.CounterModel.incrementTapped.__doc__)
            self.assertIn("'/counters/0/counter'", mytree.CounterModel.__doc__)
            remove = inspect.signature(mytree.AppModel.removeButtonTapped).parameters["id"]
            self.assertEqual((remove.kind, remove.annotation), (inspect.Parameter.KEYWORD_ONLY, "str"))

            app = mytree.root(client)
            self.assertIsInstance(app, mytree.AppModel)
            self.assertEqual(app.addButtonTapped().revision, 1)
            reply = mytree.CounterModel(client, "/counters/0/counter").incrementTapped()
            self.assertEqual(reply.revision, 2)
            counter_id = client.get("/counters/0/counter/id").value
            mytree.CounterModel(client, id=counter_id).incrementTapped()
            self.assertEqual(client.get("/counters/0/counter/count").value, 2)
            with self.assertRaises(arbor_client.InvalidParameter):
                app.removeButtonTapped(id="not an id")
            app.removeButtonTapped(id=client.get("/counters/0/id").value)
            self.assertEqual(client.get("/counters").value, [])

    def test_todosd_stubs_type_optional_and_enum_parameters(self):
        with Daemon("todosd") as daemon, Client(daemon.socket, timeout=WAIT_SECONDS) as client:
            todos = self.stubs(daemon.socket, "todostree")
            add = inspect.signature(todos.TodoListModel.addItem).parameters
            self.assertEqual((add["title"].annotation, add["title"].default), ("Optional[str]", None))
            sort = inspect.signature(todos.TodoListModel.setSortOrder).parameters["to"]
            self.assertEqual(sort.annotation, "Literal['created', 'title', 'doneLast']")
            rename = inspect.signature(todos.TodoItem.renameTag).parameters
            self.assertEqual(list(rename)[1:], ["named", "to"])

            todo = todos.root(client)
            milk = todo.addItem(title="Milk")
            self.assertRegex(milk.result, "^[0-9a-f]{16}$")
            todos.TodoItem(client, id=milk.result).rename(to="Oat milk")
            todo.setSortOrder(to="title")
            self.assertEqual(client.get("/items/0/title").value, "Oat milk")
            self.assertEqual(client.get("/sortOrder").value, "title")

    def test_names_python_cannot_take_are_renamed_and_sent_as_they_were(self):
        document = {
            "info": {"title": "oddd", "version": "1"},
            "components": {
                "schemas": {"State": {"$ref": "#/$defs/Root", "title": "Root", "$defs": {
                    "Root": {"type": "object", "properties": {"id": {"type": "string"},
                                                              "boxes": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Model"}}}},
                    "Model": {"type": "object", "properties": {"id": {"type": "string"}}}}}},
                "x-intents": {
                    "Root": {"import": {"params": {"type": "object", "properties": {
                        "from": {"type": "integer"}, "self": {"type": ["string", "null"]}, "a-b": {"type": "array", "items": {"type": "number"}}},
                        "required": ["from"]}, "result": {"type": "boolean"}}},
                    "Model": {"class": {"params": {"type": "object"}, "result": {}}},
                },
            },
        }
        text = generate(document, source="test")
        namespace = {}
        exec(compile(text, "odd.py", "exec"), namespace)
        method = namespace["Root"].import_
        parameters = inspect.signature(method).parameters
        self.assertEqual(list(parameters), ["self", "from_", "self_", "a_b"])
        self.assertEqual(parameters["a_b"].annotation, "Optional[List[float]]")
        self.assertIn("sent as 'from'", method.__doc__)
        odd_model = namespace["MODELS"]["Model"]
        self.assertEqual(odd_model.__name__, "Model_", "the base class keeps its name")
        self.assertIn("'/boxes/KEY'", odd_model.__doc__)

        calls = []

        class Recorder:
            def call_intent(self, target, intent, params):
                calls.append((target, intent, params))

        namespace["root"](Recorder()).import_(from_=3, self_="x")
        self.assertEqual(calls, [("", "import", {"from": 3, "self": "x"})])
        self.assertEqual(example_paths(document["components"]["schemas"]["State"],
                                       document["components"]["schemas"]["State"]["$defs"]),
                         {"Root": "", "Model": "/boxes/KEY"})

    def test_no_daemon_exits_3(self):
        run = subprocess.run([sys.executable, "-m", "arbor_client", "stubs", os.path.join(self.directory, "none.sock")],
                             capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, PYTHONPATH=PACKAGE_PARENT))
        self.assertEqual(run.returncode, 3)
        self.assertIn("cannot connect", run.stderr)


if __name__ == "__main__":
    unittest.main()
