# KTAP helpers for host-side bash tests (sourced).

ktap_n=0
ktap_failed=0

# result ok|fail DESCRIPTION
result() {
	ktap_n=$((ktap_n + 1))
	if [ "$1" = ok ]; then
		echo "ok $ktap_n $2"
	else
		ktap_failed=$((ktap_failed + 1))
		echo "not ok $ktap_n $2"
	fi
}
