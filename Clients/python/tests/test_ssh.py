"""host="ssh://…" and $ARBOR_HOST: the blocking and asyncio clients through ssh running
the remote `arborctl bridge`, against a real daemon and a throwaway sshd (tests/sshd.py;
skipped, saying why, without root or openssh-server)."""

import asyncio
import os
import signal
import unittest
from unittest import mock

import arbor_client
from arbor_client import SSHAddress, ssh_command
from daemons import Daemon, eventually
from sshd import SKIP_REASON, SSHServer

INCREMENT = ("/counters/0/counter", "incrementTapped")


class AddressTests(unittest.TestCase):
    def test_the_address_and_the_ssh_command_are_arborctls(self):
        address = SSHAddress.parse("ssh://ops@build-1:2222/run/my daemon.sock")
        self.assertEqual((address.user, address.host, address.port, address.socket), ("ops", "build-1", 2222, "/run/my daemon.sock"))
        self.assertEqual(str(address), "ssh://ops@build-1:2222/run/my daemon.sock")
        self.assertEqual(ssh_command(address, {}),
                         ["ssh", "-o", "BatchMode=yes", "-p", "2222", "ops@build-1", "--", "arborctl bridge --socket '/run/my daemon.sock'"])
        replaced = ssh_command(SSHAddress.parse("ssh://[::1]"), {"ARBOR_SSH_COMMAND": "ssh -i 'my key'", "ARBOR_REMOTE_ARBORCTL": "/opt/arborctl"})
        self.assertEqual(replaced, ["ssh", "-i", "my key", "::1", "--", "/opt/arborctl bridge"])
        for wrong in ["ssh://-oProxyCommand=x", "ssh://h:0", "http://h", "ssh://@h", "ssh://"]:
            with self.subTest(wrong=wrong), self.assertRaises(ValueError):
                SSHAddress.parse(wrong)

    def test_arbor_host_is_read_when_no_socket_is_given(self):
        with mock.patch.dict(os.environ, {"ARBOR_HOST": "ssh://ops@build-1"}):
            self.assertEqual(arbor_client.Client().socket, "ssh://ops@build-1")
            self.assertEqual(arbor_client.Client(host="ssh://b/x.sock").socket, "ssh://b/x.sock")
            self.assertEqual(arbor_client.Client("/run/arbor/local.sock").sockets, ["/run/arbor/local.sock"])
            self.assertEqual(arbor_client.AsyncClient(host="ssh://b", socket="/r.sock").socket, "ssh://b/r.sock")


@unittest.skipIf(SKIP_REASON is not None, SKIP_REASON or "")
class SSHTests(unittest.TestCase):
    def setUp(self):
        self.server = SSHServer().__enter__()
        self.addCleanup(self.server.__exit__)
        patcher = mock.patch.dict(os.environ, self.server.environment())
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_calls_and_a_watch_that_outlives_the_daemons_kill(self):
        daemon = Daemon(arguments=["--fsync", "always"])
        self.addCleanup(lambda: daemon.__exit__(None))
        daemon.start()
        client = arbor_client.Client(host=self.server.address(daemon.socket), timeout=20)
        self.addCleanup(client.close)
        self.assertEqual(client.intent("/", "addButtonTapped").revision, 1)
        self.assertEqual(client.get("/counters/0/counter/count").value, 0)
        watch = client.watch("/counters/0/counter/count", reconnect=arbor_client.Reconnect(initial_delay=0.02, give_up_after=60))
        self.addCleanup(watch.close)
        self.assertEqual(watch.next(timeout=20).value, 0)
        client.intent(*INCREMENT)
        self.assertEqual(watch.next(timeout=20).revision, 2)
        daemon.kill()
        daemon.start()
        local = arbor_client.Client(daemon.socket)
        self.addCleanup(local.close)
        local.intent(*INCREMENT)
        update = watch.next(timeout=30)
        self.assertEqual((update.revision, update.value), (3, 2))
        self.assertEqual(update.value, local.get("/counters/0/counter/count").value)

    def test_async_client_and_arbor_host(self):
        with Daemon() as daemon:
            async def main():
                with mock.patch.dict(os.environ, {"ARBOR_HOST": self.server.address(daemon.socket)}):
                    client = arbor_client.AsyncClient(timeout=20)
                async with client:
                    reply = await client.intent("/", "addButtonTapped")
                    state = await client.get("/counters")
                    return reply.revision, len(state.value)

            self.assertEqual(asyncio.run(main()), (1, 1))

    def test_ssh_that_ends_names_the_host_and_one_that_cannot_log_in_cannot_connect(self):
        with Daemon() as daemon:
            address = self.server.address(daemon.socket)
            client = arbor_client.Client(host=address, timeout=20)
            self.addCleanup(client.close)
            watch = client.watch(reconnect=False)
            self.addCleanup(watch.close)
            watch.next(timeout=20)
            eventually("the watch's ssh session", lambda: len(self.server.sessions()) > 0)
            for session in self.server.sessions():
                os.kill(session, signal.SIGKILL)
            with self.assertRaises(arbor_client.ConnectionClosed) as ended:
                watch.next(timeout=20)
            self.assertIn(f"the connection to {address} ended: ", str(ended.exception))

            with self.assertRaises(arbor_client.CannotConnect) as refused:
                arbor_client.Client(host=self.server.address(daemon.socket, user="no-such-user"), timeout=20).status()
            self.assertIn("Permission denied", refused.exception.reason)


if __name__ == "__main__":
    unittest.main()
