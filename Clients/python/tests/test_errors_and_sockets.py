"""The error classes by name and code, and arborctl's socket rule."""

import os
import shutil
import tempfile
import unittest

import arbor_client
from arbor_client import ArborError, SeveralSockets, SocketNotFound, default_directories, find_socket, find_sockets


class ErrorTests(unittest.TestCase):
    def test_each_name_the_daemon_uses_has_its_class_and_code(self):
        # Sources/ArborRPC/Messages/ArborError.swift: every error, in code order.
        names = ["TargetNotFound", "IntentNotFound", "InvalidParameter", "IntentFailed", "PermissionDenied",
                 "RevisionCompacted", "PathNotFound", "SnapshotRejected", "SubscriptionNotFound", "LineTooLong",
                 "ShuttingDown", "NotDurable", "UndoNotTracked", "NothingToUndo", "NothingToRedo", "WritesRefused",
                 "Superseded", "NotLeader", "NotForwarded"]
        for code, name in enumerate(names, start=1001):
            with self.subTest(name=name):
                cls = getattr(arbor_client, name)
                self.assertEqual(cls.name, "org.arbor." + name)
                self.assertEqual(cls.code, code)
                error = ArborError.from_error({"code": code, "message": "m", "data": {"name": cls.name, "x": 1}})
                self.assertIs(type(error), cls)
                self.assertEqual((error.name, error.code, error.message, error.data["x"]), (cls.name, code, "m", 1))

    def test_standard_errors_go_by_code_and_unknown_names_fall_back(self):
        for code, cls in [(-32700, arbor_client.ParseError), (-32600, arbor_client.InvalidRequest),
                          (-32601, arbor_client.MethodNotFound), (-32602, arbor_client.InvalidParams),
                          (-32603, arbor_client.InternalError), (-32000, arbor_client.ServerError)]:
            with self.subTest(code=code):
                error = ArborError.from_error({"code": code, "message": "m"})
                self.assertIs(type(error), cls)
                self.assertIsNone(error.name)
        method_parameter = ArborError.from_error(
            {"code": -32602, "message": "m", "data": {"name": "org.arbor.InvalidParameter", "parameter": "path"}})
        self.assertIsInstance(method_parameter, arbor_client.InvalidParameter)
        self.assertIsInstance(method_parameter, arbor_client.InvalidParams)
        self.assertEqual(method_parameter.code, -32602)
        unknown = ArborError.from_error({"code": 1999, "message": "new", "data": {"name": "org.arbor.SomethingNew"}})
        self.assertIs(type(unknown), ArborError)
        self.assertEqual((unknown.name, unknown.code), ("org.arbor.SomethingNew", 1999))
        self.assertIs(type(ArborError.from_error({"code": 77, "message": "?"})), ArborError)
        self.assertEqual(str(unknown), "new [org.arbor.SomethingNew, 1999]")


class SocketRuleTests(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="arbor-py-rule-")
        self.addCleanup(shutil.rmtree, self.directory, True)
        self.runtime = os.path.join(self.directory, "runtime")
        os.makedirs(os.path.join(self.runtime, "arbor"))

    def touch(self, name):
        open(os.path.join(self.runtime, "arbor", name), "w").close()

    def test_given_then_arbor_socket_then_the_lone_socket(self):
        self.assertEqual(find_sockets("/x.sock", environ={"ARBOR_SOCKET": "/y.sock"}), ["/x.sock"])
        self.assertEqual(find_sockets(["/a.sock", "/b.sock"]), ["/a.sock", "/b.sock"])
        self.assertEqual(find_sockets(environ={"ARBOR_SOCKET": "/a.sock::/b.sock"}), ["/a.sock", "/b.sock"])
        self.assertEqual(find_socket(environ={"ARBOR_SOCKET": "/a.sock:/b.sock"}), "/a.sock")
        self.touch("counterfactd.sock")
        self.touch("notes.txt")
        environ = {"ARBOR_SOCKET": "", "XDG_RUNTIME_DIR": self.runtime}
        self.assertEqual(find_socket(environ=environ, uid=54321), self.runtime + "/arbor/counterfactd.sock")

    def test_several_sockets_ask_to_choose_and_none_names_the_directories(self):
        self.touch("todosd.sock")
        self.touch("counterfactd.sock")
        environ = {"XDG_RUNTIME_DIR": self.runtime}
        with self.assertRaises(SeveralSockets) as several:
            find_socket(environ=environ, uid=54321)
        self.assertEqual(several.exception.sockets, ["counterfactd.sock", "todosd.sock"])
        with self.assertRaises(SocketNotFound) as none:
            find_socket(environ={"XDG_RUNTIME_DIR": self.directory}, uid=54321)
        self.assertEqual(none.exception.directories, [self.directory + "/arbor", "/tmp/arbor-54321"])
        self.assertIsInstance(none.exception, arbor_client.CannotConnect)

    def test_the_default_directories(self):
        self.assertEqual(default_directories({}, uid=0), ["/run/arbor"])
        self.assertEqual(default_directories({"XDG_RUNTIME_DIR": ""}, uid=1000), ["/tmp/arbor-1000"])
        self.assertEqual(default_directories({"XDG_RUNTIME_DIR": "/run/user/1000"}, uid=1000),
                         ["/run/user/1000/arbor", "/tmp/arbor-1000"])


if __name__ == "__main__":
    unittest.main()
