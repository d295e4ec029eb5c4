# Shared helpers for the host-side vm/ scripts (sourced, not run).

HPBRAKE_ROOT=${HPBRAKE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
HPBRAKE_CACHE=${HPBRAKE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hpbrake}
HPBRAKE_BUILD=${HPBRAKE_BUILD:-$HPBRAKE_ROOT/build}

die() {
	printf '%s: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

say() {
	printf '  %-8s %s\n' "$1" "$2"
}

# Seconds since the epoch with a fraction, for step timings.
now() {
	date +%s.%N
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}
