#!/bin/bash
# make shell, driven by a script: boot the guest to its interactive shell,
# type commands on the serial console one at a time (each waits for the
# previous one's marker), run hplat and read its output. KTAP output.
#
# usage: tests/shell-session.sh KVER VARIANT
set -u
. "$(dirname "$0")/../vm/lib.sh"

kver=${1:-6.1}
variant=${2:-braked}
dir=$(mktemp -d)
fifo=$dir/in
log=$dir/console
mkfifo "$fifo"
qpid=""
cleanup() {
	exec 3>&- 2>/dev/null
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

KVER=$kver VARIANT=$variant "$HPBRAKE_ROOT/vm/run" -t 120 shell \
	< "$fifo" > "$log" 2>&1 &
qpid=$!
exec 3> "$fifo"

# wait_for PATTERN SECONDS
wait_for() {
	local i
	for i in $(seq $(($2 * 10))); do
		grep -q "$1" "$log" && return 0
		kill -0 "$qpid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

. "$(dirname "$0")/lib/ktap.sh"
# on failure, show where the console got to
result_or_console() {
	result "$@"
	[ "$1" = ok ] || tail -n 15 "$log" | tr -d '\r' | sed 's/^/# /'
}

# type CMD: send one command line and wait for its end marker
step=0
type_cmd() {
	step=$((step + 1))
	printf '%s; echo "step-$((%d))-done"\n' "$1" "$step" >&3
	wait_for "^step-$step-done" "${2:-60}"
}

echo "KTAP version 1"
echo "1..4"
if wait_for 'hpbrake guest:' 60; then
	result_or_console ok "guest boots to the interactive shell"
else
	result_or_console fail "guest boots to the interactive shell"
	exit 1
fi
sleep 1
type_cmd 'which hplat hpop' 10
if grep -q '/usr/local/bin/hplat' "$log" && grep -q '/usr/local/bin/hpop' "$log"; then
	result_or_console ok "hplat and hpop on PATH"
else
	result_or_console fail "hplat and hpop on PATH"
fi
type_cmd '(sleep 1; hpop op 1 offline; hpop op 1 online) & hplat -d 5 -L' 60
if tr -d '\r' < "$log" | grep -q '^offline: 1 ops, 0 errors' &&
   tr -d '\r' < "$log" | grep -q '^online: 1 ops, 0 errors'; then
	result_or_console ok "hplat typed at the prompt counts 1 offline and 1 online"
else
	result_or_console fail "hplat typed at the prompt counts 1 offline and 1 online"
fi
printf 'reboot -f\n' >&3
for i in $(seq 100); do
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.1
done
if ! kill -0 "$qpid" 2>/dev/null; then
	result_or_console ok "reboot -f ends the session"
else
	result_or_console fail "reboot -f ends the session"
fi
[ "$ktap_failed" = 0 ]
