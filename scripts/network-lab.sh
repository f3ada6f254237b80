#!/usr/bin/env bash
# Separate network namespaces on this machine, for the tests that cut a daemon's network:
# PostgreSQL in one, each daemon in one of its own, a veth pair from each daemon to the
# server. A daemon's Unix socket is a file, so clients in the first namespace reach it.
#
#   scripts/network-lab.sh up NAME N             namespaces NAMEpg and NAMEd1 … NAMEdN;
#                                                 daemon I is 10.231.I.2, the server 10.231.I.1
#   scripts/network-lab.sh postgres NAME DIR PORT  a PostgreSQL server in NAMEpg, on every
#                                                 link, that drops a silent peer within ~3 s
#   scripts/network-lab.sh restart NAME DIR      that server restarted (every session ends)
#   scripts/network-lab.sh cut NAME I            daemon I's link down (its machine cut off)
#   scripts/network-lab.sh mend NAME I           daemon I's link up again
#   scripts/network-lab.sh exec NAME I CMD…      CMD in daemon I's namespace (exec'd in place)
#   scripts/network-lab.sh down NAME [DIR]        stop the server in DIR, delete the namespaces
#
# Needs root (CAP_NET_ADMIN) and iproute2. NAME is at most 10 characters.
set -euo pipefail

command=${1:?up, postgres, restart, cut, mend, exec or down}
name=${2:?a name for the namespaces}
here=$(cd "$(dirname "$0")" && pwd)

case "$command" in
  up)
    count=${3:?the number of daemons}
    ip netns add "${name}pg"
    ip -n "${name}pg" link set lo up
    for i in $(seq 1 "$count"); do
      ip netns add "${name}d$i"
      ip -n "${name}d$i" link set lo up
      ip link add "${name}p$i" netns "${name}pg" type veth peer name "${name}d$i" netns "${name}d$i"
      ip -n "${name}pg" addr add "10.231.$i.1/24" dev "${name}p$i"
      ip -n "${name}d$i" addr add "10.231.$i.2/24" dev "${name}d$i"
      ip -n "${name}pg" link set "${name}p$i" up
      ip -n "${name}d$i" link set "${name}d$i" up
    done
    ;;
  postgres)
    dir=${3:?the directory of the server}
    port=${4:?a port}
    # A peer that stops answering is dropped within about 3 s, whether the connection is
    # idle (keepalives) or has data unacknowledged (tcp_user_timeout): what a server on a
    # real network would be configured to do for a leader's lock to be released.
    ip netns exec "${name}pg" env TRUST_NETWORK=10.231.0.0/16 \
      POSTGRES_OPTIONS="-c tcp_keepalives_idle=1 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=2 -c tcp_user_timeout=3000" \
      bash "$here/postgres-server.sh" start "$dir" "$port" '*'
    ;;
  restart)
    ip netns exec "${name}pg" bash "$here/postgres-server.sh" restart "${3:?the directory of the server}"
    ;;
  cut)
    ip -n "${name}d${3:?a daemon number}" link set "${name}d$3" down
    ;;
  mend)
    ip -n "${name}d${3:?a daemon number}" link set "${name}d$3" up
    ;;
  exec)
    i=${3:?a daemon number}
    shift 3
    exec ip netns exec "${name}d$i" "$@"
    ;;
  down)
    if [ -n "${3:-}" ]; then bash "$here/postgres-server.sh" stop "$3" || true; fi
    for namespace in $(ip netns list | awk '{print $1}' | grep "^${name}\(pg\|d[0-9]*\)$" || true); do
      ip netns pids "$namespace" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
      ip netns del "$namespace" || true
    done
    ;;
  *)
    echo "unknown command $command: up, postgres, restart, cut, mend, exec or down" >&2
    exit 2
    ;;
esac
