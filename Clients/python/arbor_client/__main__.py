"""``python -m arbor_client stubs [SOCKET] [-o FILE]``: typed intent stubs of a daemon.

Example::

    python -m arbor_client stubs /run/arbor/counterfactd.sock > mytree.py

Exit codes follow arborctl's: 0 ok, 1 the daemon refused, 2 usage, 3 cannot connect,
4 timeout.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from .client import Client
from .errors import ArborError, CannotConnect, ClientError, SeveralSockets, Timeout
from .stubs import generate


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arbor_client", description="Tools of the Arbor Python client.")
    commands = parser.add_subparsers(dest="command", required=True)
    stubs = commands.add_parser(
        "stubs", help="print typed intent stubs of a daemon's models (from rpc.discover)",
        description="Prints a Python module with one class per model type and one typed method per intent.")
    stubs.add_argument("socket", nargs="?", help="the daemon's socket (default: $ARBOR_SOCKET, else the lone socket where daemons put theirs)")
    stubs.add_argument("-o", "--output", help="write the module to this file instead of standard output")
    stubs.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the daemon (default: 10)")
    arguments = parser.parse_args(argv)

    try:
        with Client(arguments.socket, timeout=arguments.timeout) as client:
            text = generate(client.discover(), source=arguments.socket or client.socket)
    except SeveralSockets as error:
        print(f"python -m arbor_client: {error}", file=sys.stderr)
        return 2
    except CannotConnect as error:
        print(f"python -m arbor_client: {error}", file=sys.stderr)
        return 3
    except Timeout as error:
        print(f"python -m arbor_client: {error}", file=sys.stderr)
        return 4
    except (ArborError, ClientError) as error:
        print(f"python -m arbor_client: {error}", file=sys.stderr)
        return 1
    if arguments.output:
        with open(arguments.output, "w", encoding="utf-8") as file:
            file.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
