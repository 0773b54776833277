# Sourced by the test runners that drive the example servers over HTTP. Needs $bin (the
# examples' build directory), $work (a scratch directory) and the array `servers` (pids to
# stop on exit).

# start NAME [ARGS...]: runs examples/NAME on a free loopback port with ARGS and sets $url to its
# endpoint once it accepts connections.
start() {
  local name="$1" port
  shift
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  "$bin/$name" --addr "127.0.0.1:$port" "$@" >"$work/$name.log" 2>&1 &
  servers+=($!)
  for _ in $(seq 1 100); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2).close()" 2>/dev/null; then
      url="http://127.0.0.1:$port/mcp"
      return
    fi
    sleep 0.1
  done
  echo "examples/$name did not start:"; cat "$work/$name.log"; exit 1
}
