#!/bin/sh
# Install Debian's Chromium for the browser tests (Playwright cannot download browsers here).
#
# Another install may hold apt's locks: wait for them, at most CHROMIUM_WAIT seconds (300 by
# default): `-o DPkg::Lock::Timeout` for dpkg's lock, a bounded retry for the package lists' lock
# (which `apt-get update` does not wait for). When Chromium cannot be had all the same, write the
# reason to test-output/chromium-unavailable.txt and succeed: the browser tests then skip with
# that reason (tests/e2e/conftest.py) instead of `make test` failing as a whole.
set -u
wait_seconds="${CHROMIUM_WAIT:-300}"
poll="${CHROMIUM_POLL:-5}"
browser="${CHROMIUM:-chromium}"
note="test-output/chromium-unavailable.txt"
rm -f "$note"
command -v "$browser" >/dev/null 2>&1 && exit 0

give_up() {
    mkdir -p test-output
    printf '%s\n' "$1" > "$note"
    echo "make browser: $1 The browser tests will be skipped." >&2
    exit 0
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
waited=0
until apt-get -o DPkg::Lock::Timeout="$wait_seconds" update -qq >"$log" 2>&1; do
    if ! grep -qi "lock" "$log"; then
        give_up "apt-get update failed: $(tail -n 1 "$log")"
    fi
    if [ "$waited" -ge "$wait_seconds" ]; then
        give_up "apt's package lists stayed locked for ${wait_seconds} s (another install is running)."
    fi
    sleep "$poll"
    waited=$((waited + poll))
done
if ! apt-get -o DPkg::Lock::Timeout="$wait_seconds" install -y -qq chromium >"$log" 2>&1; then
    give_up "apt-get install chromium failed: $(tail -n 1 "$log")"
fi
command -v "$browser" >/dev/null 2>&1 || give_up "$browser is still not on PATH after its install."
