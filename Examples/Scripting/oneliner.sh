echo '{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}' | socat - UNIX-CONNECT:"$ARBOR_SOCKET" | jq -c .result
echo '{"jsonrpc":"2.0","id":2,"method":"state.get","params":{"path":"/counters/0/counter/count"}}' | socat - UNIX-CONNECT:"$ARBOR_SOCKET" | jq .result.value
