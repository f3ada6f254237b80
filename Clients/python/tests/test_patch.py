"""JSON Pointer (RFC 6901) and JSON Patch (RFC 6902) against the RFCs' own examples."""

import copy
import unittest

from arbor_client import PatchError, apply_patch, format_pointer, json_equal, parse_pointer, resolve


class PointerTests(unittest.TestCase):
    DOCUMENT = {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5,
                "k\"l": 6, " ": 7, "m~n": 8}

    def test_rfc_6901_section_5(self):
        cases = {"": self.DOCUMENT, "/foo": ["bar", "baz"], "/foo/0": "bar", "/": 0, "/a~1b": 1, "/c%d": 2,
                 "/e^f": 3, "/g|h": 4, "/i\\j": 5, "/k\"l": 6, "/ ": 7, "/m~0n": 8}
        for pointer, expected in cases.items():
            with self.subTest(pointer=pointer):
                self.assertEqual(resolve(self.DOCUMENT, pointer), expected)

    def test_tokens_are_unescaped_in_order_and_printed_back(self):
        self.assertEqual(parse_pointer("/~01"), ["~1"])
        self.assertEqual(format_pointer(["~1", "a/b", 0]), "/~01/a~1b/0")

    def test_malformed_pointers_and_missing_values_are_named(self):
        with self.assertRaisesRegex(PatchError, "'foo' is not a JSON Pointer: a pointer must be empty or start with '/'"):
            parse_pointer("foo")
        with self.assertRaisesRegex(PatchError, "'~' must be followed by '0' or '1'"):
            parse_pointer("/a~2")
        with self.assertRaisesRegex(PatchError, "nothing at '/foo/2'"):
            resolve(self.DOCUMENT, "/foo/2")
        with self.assertRaisesRegex(PatchError, "'01' at '/foo/01' is not an array index"):
            resolve(self.DOCUMENT, "/foo/01")
        with self.assertRaisesRegex(PatchError, "'/a~1b' is a number, which has no members"):
            resolve(self.DOCUMENT, "/a~1b/x")


class PatchTests(unittest.TestCase):
    def check(self, document, patch, expected):
        before = copy.deepcopy(document)
        self.assertTrue(json_equal(apply_patch(document, patch), expected))
        self.assertEqual(document, before, "the input is left as it was")

    def test_rfc_6902_appendix_a(self):
        self.check({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"})  # A.1
        self.check({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
                   {"foo": ["bar", "qux", "baz"]})  # A.2
        self.check({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"})  # A.3
        self.check({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]})  # A.4
        self.check({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}],
                   {"baz": "boo", "foo": "bar"})  # A.5
        self.check({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
                   [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
                   {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}})  # A.6
        self.check({"foo": ["all", "grass", "cows", "eat"]}, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
                   {"foo": ["all", "cows", "eat", "grass"]})  # A.7
        self.check({"baz": "qux", "foo": ["a", 2, "c"]},
                   [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
                   {"baz": "qux", "foo": ["a", 2, "c"]})  # A.8
        self.check({"foo": "bar"}, [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
                   {"foo": "bar", "child": {"grandchild": {}}})  # A.10
        self.check({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}],
                   {"foo": "bar", "baz": "qux"})  # A.11
        self.check({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
                   {"foo": ["bar", ["abc", "def"]]})  # A.16
        self.check({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": 10}], {"/": 9, "~1": 10})  # A.14
        self.check({"foo": None}, [{"op": "test", "path": "/foo", "value": None}], {"foo": None})

    def test_rfc_6902_appendix_a_errors(self):
        failing = [
            ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}], "operation 0 \\('test'\\) failed"),  # A.9
            ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}], "nothing at '/baz'"),  # A.12
            ({"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}], "failed"),  # A.15
            ({"a": [1]}, [{"op": "remove", "path": "/missing"}], "operation 0 \\('remove'\\) failed: nothing at '/missing'"),
            ({"a": [1]}, [{"op": "move", "from": "/nope", "path": "/nope"}], "nothing at '/nope'"),
            ({"a": {"b": 1}}, [{"op": "move", "from": "/a", "path": "/a/b/c"}], "cannot be moved into itself"),
            ({"a": [1]}, [{"op": "replace", "path": "/a/1", "value": 2}], "nothing at '/a/1'"),
            ({"a": [1]}, [{"op": "add", "path": "/a/3", "value": 2}], "past the end"),
            ({"a": 1}, [{"op": "jump", "path": "/a"}], "unknown op 'jump'"),
            ({"a": 1}, [{"op": "add", "path": "/b"}], "has no 'value'"),
        ]
        for document, patch, message in failing:
            with self.subTest(patch=patch):
                with self.assertRaisesRegex(PatchError, message):
                    apply_patch(document, patch)

    def test_a_patch_is_all_or_nothing_and_shares_what_it_did_not_change(self):
        document = {"rows": [{"n": 1}, {"n": 2}], "other": {"big": list(range(10))}}
        after = apply_patch(document, [{"op": "replace", "path": "/rows/0/n", "value": 5},
                                       {"op": "add", "path": "/rows/-", "value": {"n": 3}}])
        self.assertEqual(after["rows"], [{"n": 5}, {"n": 2}, {"n": 3}])
        self.assertEqual(document["rows"], [{"n": 1}, {"n": 2}])
        self.assertIs(after["other"], document["other"], "untouched parts are shared")
        self.assertIs(after["rows"][1], document["rows"][1])
        with self.assertRaises(PatchError):
            apply_patch(document, [{"op": "replace", "path": "/rows/0/n", "value": 9}, {"op": "remove", "path": "/x"}])
        self.assertEqual(document["rows"][0]["n"], 1, "a failed patch changed nothing")

    def test_whole_document_operations_and_copies(self):
        self.assertEqual(apply_patch({"a": 1}, [{"op": "replace", "path": "", "value": 7}]), 7)
        self.assertEqual(apply_patch(None, [{"op": "add", "path": "", "value": {"x": 1}}]), {"x": 1})
        document = {"a": {"b": [1]}}
        after = apply_patch(document, [{"op": "copy", "from": "/a", "path": "/c"}, {"op": "add", "path": "/c/b/-", "value": 2}])
        self.assertEqual(after, {"a": {"b": [1]}, "c": {"b": [1, 2]}})
        self.assertEqual(document, {"a": {"b": [1]}})

    def test_json_equality(self):
        self.assertTrue(json_equal(1, 1.0))
        self.assertFalse(json_equal(True, 1))
        self.assertFalse(json_equal("1", 1))
        self.assertFalse(json_equal(None, 0))
        self.assertTrue(json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}))


if __name__ == "__main__":
    unittest.main()
